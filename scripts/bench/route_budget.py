"""Where route()'s CPU per call goes, beside the share the per-call target leaves it.

The route target (route.py) allows the router 30% more CPU per call than the fastest raw SDK
way (issue 41; it was 10%, which a router with no citation rules at all already used up). This
bench splits what the router adds, so each run shows how much of that 30% its parts take. For
every vendor with a floor extractor (extract_floor.py), sync calls against the emulator with no
latency, every way in the same rounds (calls.py):

- fastest raw SDK: the cheapest SDK way of baselines.py that hands over the body as a dict
  (the generic post, or google-genai's raw response);
- route(), wrapper only: the router (request checks, limits, retries, assembly, pricing,
  validation, the tracing check) around a bare adapter that sends the request that same raw
  way and returns the answer text with one fixed citation: no work per source;
- route(), floor extraction: the same, but the bare adapter extracts every source with the
  floor extractor, the least any Python extractor does (split the URL, build the dict);
- route(): the router with the vendor's own adapter: its HTTP stack (bounded by the call's
  deadline and reply limit), its request builder and every citation rule of DESIGN.md;
- route(), no network: the wrapper alone in blocks of its own, around an adapter that hands
  back a prepared reply. Beside the SDK's calls the same code costs about twice as much (its
  code and data and the SDK's compete for the CPU's caches), which is why the wrapper is
  timed both ways.

The bare adapters go in through the router's ``adapters`` option, as a custom transport would.
The budget line says how many µs the 30% is, and what the wrapper and the floor extraction
alone take of it; a ``bound`` line per vendor states route() with floor extraction over the
fastest raw SDK, the least this router could reach if every citation rule cost nothing.

    .venv/bin/python scripts/bench/route_budget.py [--calls N] [--rounds N] [--vendor V]
"""

from __future__ import annotations

import argparse
import operator
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the emulator-process helper of the test suite

from baselines import sync_raw  # noqa: E402
from calls import Figures, per_round, requests_for, sync_rounds  # noqa: E402
from extract_floor import FLOORS  # noqa: E402
from targets import bound, load_line, median  # noqa: E402

from adapters.base import AdapterResult  # noqa: E402
from adapters.registry import provider  # noqa: E402
from router.emulated import emulated_settings  # noqa: E402
from router.router import UnifiedLLMAdapter  # noqa: E402
from router.settings import RouterSettings  # noqa: E402
from router.types import Citation, LLMRequest, Usage, Vendor  # noqa: E402
from support.emulator_process import emulator_process  # noqa: E402

ROUTE_TARGET = 1.30
# The body's shape, by vendor: which floor extractor reads it and where its answer text is.
SHAPES: dict[Vendor, str] = {
    "openai": "openai",
    "openrouter": "openai",
    "vertex": "vertex",
    "gemini": "vertex",
}
RAW_WAYS = ("generic post", "raw response")
FASTEST, ROUTED = "fastest raw SDK", "route()"
WRAPPER, FLOORED = "route(), wrapper only", "route(), floor extraction"
CANNED = "route(), no network"
ONE_CITATION: Citation = {
    "provider": "openai",
    "url": "https://example.com/",
    "source_domain": "example.com",
    "title": None,
    "snippet": None,
    "source_type": "web",
    "rank": 1,
    "raw": {},
    "spans": [],
    "cited": False,
    "cited_text": None,
    "location": None,
}

Body = dict[str, Any]


def answer_text(shape: str, body: Body) -> str:
    """The answer's text, read the plainest way."""
    if shape == "vertex":
        parts = body["candidates"][0]["content"]["parts"]
        return "".join(part.get("text", "") for part in parts)
    if "choices" in body:
        return str(body["choices"][0]["message"]["content"])
    return "".join(
        part.get("text", "")
        for item in body["output"]
        if item.get("type") == "message"
        for part in item["content"]
    )


def bare_result(content: str, citations: list[Citation]) -> AdapterResult:
    return AdapterResult(
        content=content,
        grounded_effective=True,
        tool_call_count=1,
        citations=citations,
        usage=Usage(),
    )


Reply = Callable[[LLMRequest], AdapterResult]


def sent(send: Callable[[LLMRequest], Any], shape: str, extract: Callable[[Body], Any]) -> Reply:
    """A reply sent the raw SDK way, mapped with ``extract`` (no citation rules)."""

    def reply(request: LLMRequest) -> AdapterResult:
        body = send(request)
        return bare_result(answer_text(shape, body), extract(body))

    return reply


class BareAdapter:
    """An adapter whose call is ``reply(request)``: no provider package in between."""

    def __init__(self, vendor: Vendor, reply: Reply) -> None:
        self.vendor = vendor
        self._reply = reply

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        del settings
        return self._reply(request)

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        raise NotImplementedError("this bench times sync calls only")

    def close(self) -> None:
        pass

    async def aclose(self) -> None:
        pass


def bench(
    vendor: Vendor, settings: RouterSettings, calls: int, rounds: int
) -> tuple[str, dict[str, Figures]]:
    """(the raw way used, the figures of every way)."""
    raw = sync_raw(vendor, settings)
    way = next(name for name in RAW_WAYS if name in raw.calls)
    send = raw.calls[way]
    model = provider(vendor).default_model
    first = requests_for(vendor, model, 1)[0]
    raw.check(first)
    shape = SHAPES[vendor]
    answer = answer_text(shape, send(first))
    one: Citation = {**ONE_CITATION, "provider": vendor}
    replies: dict[str, Reply] = {
        WRAPPER: sent(send, shape, lambda _body: [one]),
        FLOORED: sent(send, shape, FLOORS[shape]),
        CANNED: lambda _request: bare_result(answer, [one]),
    }
    with ExitStack() as routers:
        variants: dict[str, Callable[[LLMRequest], Any]] = {FASTEST: send}
        for name, reply in replies.items():
            adapter = BareAdapter(vendor, reply)
            routed = routers.enter_context(UnifiedLLMAdapter(settings, adapters={vendor: adapter}))
            variants[name] = routed.route
        variants[ROUTED] = routers.enter_context(UnifiedLLMAdapter(settings)).route
        figures = sync_rounds(
            variants,
            lambda turn: requests_for(vendor, model, calls, start=(turn + 1) * calls),
            rounds,
        )
    raw.close()
    return way, figures


def report(vendor: str, way: str, figures: dict[str, Figures]) -> None:
    fastest = figures[FASTEST]
    for name in (FASTEST, WRAPPER, FLOORED, ROUTED, CANNED):
        figure = figures[name]
        shown = f"{name} ({way})" if name == FASTEST else name
        print(f"{vendor:10} {shown:34} {figure.cpu_us:9.0f} {figure.cpu_us / fastest.cpu_us:10.2f}")

    def added(name: str) -> float:
        """µs over the fastest raw way, the median of the per-round differences."""
        return median(per_round(figures[name], fastest, operator.sub))

    wrapper, floored, routed = added(WRAPPER), added(FLOORED), added(ROUTED)
    budget = fastest.cpu_us * (ROUTE_TARGET - 1)
    print(
        f"{vendor:10} budget at {ROUTE_TARGET:.2f}x: {budget:.0f} µs. The wrapper takes "
        f"{wrapper:.0f} µs beside the SDK ({figures[CANNED].cpu_us:.0f} µs on its own), floor "
        f"extraction {floored - wrapper:.0f} µs more, the adapter's HTTP stack and citation "
        f"rules {routed - floored:.0f} µs more: {routed:.0f} µs in all"
    )
    bound(
        f"route_budget: {vendor} route() with floor extraction / fastest raw SDK (sync)",
        median(per_round(figures[FLOORED], fastest, operator.truediv)),
        ROUTE_TARGET,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="sync calls per block")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds per way")
    parser.add_argument("--vendor", action="append", choices=sorted(SHAPES), help="repeatable")
    args = parser.parse_args()
    with emulator_process() as emulator:
        print(
            f"CPU per sync call, {args.calls} calls per block against an emulator with no "
            f"latency, medians of {args.rounds} rounds"
        )
        print(load_line())
        print(f"{'vendor':10} {'way':34} {'CPU µs':>9} {'x fastest':>10}")
        for vendor in args.vendor or SHAPES:
            report(vendor, *bench(vendor, emulated_settings(emulator), args.calls, args.rounds))
        print(load_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
