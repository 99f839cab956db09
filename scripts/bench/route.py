"""What route() and aroute() cost per call beside the raw SDK, and what `import router` costs.

For every registered vendor, against the emulator running in a process of its own (so this
process's CPU time is the client's alone), it times blocks of calls with distinct prompts, sync
one after another and async ``--concurrency`` at a time, each at an emulator latency of 0 ms
(the client's overhead alone, so no latency can hide a ratio) and async again at a realistic
fixed ``--latency-ms``, each way in the same rounds (see calls.py):

- floor, default, raw response and generic post: the raw ways of baselines.py (the aiohttp or
  ``http.client`` floor without any SDK; the SDK as its README shows it; the fast ways to drive
  the same SDK), each first checked to get a grounded, cited answer. The cheapest SDK way of
  the run is "fastest raw SDK" below;
- adapter SDK call (Vertex and Gemini): the adapter's own google-genai call for the request,
  its arguments built by the adapter and its body decoded, no mapping;
- route() / aroute(): the router, which also extracts the citations, assembles and validates the
  response, prices it and traces it (no tracer provider set: tracing off).

It prints CPU µs and wall ms per call (medians over the rounds) and each way's CPU as a
multiple of the floor, of the default SDK and of the fastest raw SDK; the target figure is the
median over the rounds of the router's CPU over the fastest raw SDK's in the same round. Then
it times `import router` and `import openai` in fresh interpreters. Targets (issue 41): the
router's CPU per call at most 1.30x the fastest raw SDK's, for every vendor, sync and async;
for Vertex and Gemini also at most 1.0x google-genai's default client, and the adapter's own
SDK call at most 1.08x the fastest raw way; `import router` at most 10% of `import openai`.

    .venv/bin/python scripts/bench/route.py [--calls N] [--async-calls N] [--rounds N]
        [--concurrency C] [--latency-ms MS] [--import-runs N] [--vendor V] [--mode sync|async]
"""

from __future__ import annotations

import argparse
import asyncio
import operator
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the emulator-process helper of the test suite

from baselines import async_raw, covered, sync_raw  # noqa: E402
from calls import Figures, async_rounds, per_round, requests_for, sync_rounds  # noqa: E402
from targets import load_line, median, target  # noqa: E402

from adapters.registry import provider, vendors  # noqa: E402
from router.emulated import emulated_settings  # noqa: E402
from router.router import UnifiedLLMAdapter  # noqa: E402
from router.settings import RouterSettings  # noqa: E402
from router.types import LLMRequest  # noqa: E402
from support.emulator_process import emulator_process  # noqa: E402

TARGET = 1.30
GENAI_DEFAULT_TARGET = 1.0
ADAPTER_CALL_TARGET = 1.08
ADAPTER_CALL = "adapter SDK call"
RAW_FASTEST = ("default", "raw response", "generic post")
GENAI = ("vertex", "gemini")


def _genai_adapter(vendor: str) -> Any:
    from adapters.vertex.adapter import GeminiAdapter, VertexAdapter

    return VertexAdapter() if vendor == "vertex" else GeminiAdapter()


def adapter_call(vendor: str, settings: RouterSettings) -> tuple[Any, Callable[..., Any]]:
    """(the adapter, its own sync SDK call for a request: arguments built, body decoded)."""
    from adapters.vertex.adapter import _call
    from adapters.vertex.body import reply_body
    from adapters.vertex.request import plan_steps

    adapter = _genai_adapter(vendor)
    client = adapter._clients.sync_client(settings)

    def call(request: LLMRequest) -> Any:
        arguments = _call(request, settings, plan_steps(request)[0], None)
        return reply_body(client.models.generate_content(**arguments))

    return adapter, call


def async_adapter_call(vendor: str, settings: RouterSettings) -> tuple[Any, Callable[..., Any]]:
    """The async twin of :func:`adapter_call`; make it on the loop that will use it."""
    from adapters.vertex.adapter import _call
    from adapters.vertex.body import reply_body
    from adapters.vertex.request import plan_steps

    adapter = _genai_adapter(vendor)
    client = adapter._clients.async_client(settings)

    async def call(request: LLMRequest) -> Any:
        arguments = _call(request, settings, plan_steps(request)[0], None)
        return reply_body(await client.models.generate_content(**arguments))

    return adapter, call


def bench_sync(
    vendor: str, settings: RouterSettings, calls: int, rounds: int
) -> dict[str, Figures]:
    raw = sync_raw(vendor, settings)
    model = provider(vendor).default_model
    raw.check(requests_for(vendor, model, 1)[0])
    own: dict[str, Callable[..., Any]] = {}
    adapter = None
    if vendor in GENAI:
        adapter, own[ADAPTER_CALL] = adapter_call(vendor, settings)
    with UnifiedLLMAdapter(settings) as router:
        variants = {**raw.calls, **own, "route()": router.route}
        figures = sync_rounds(
            variants,
            lambda turn: requests_for(vendor, model, calls, start=(turn + 1) * calls),
            rounds,
        )
    raw.close()
    if adapter is not None:
        adapter.close()
    return figures


async def bench_async(
    vendor: str, settings: RouterSettings, calls: int, rounds: int, concurrency: int
) -> dict[str, Figures]:
    raw = async_raw(vendor, settings, concurrency)
    model = provider(vendor).default_model
    await raw.check(requests_for(vendor, model, 1)[0])
    own: dict[str, Callable[..., Any]] = {}
    adapter = None
    if vendor in GENAI:
        adapter, own[ADAPTER_CALL] = async_adapter_call(vendor, settings)
    async with UnifiedLLMAdapter(settings) as router:
        variants = {**raw.calls, **own, "aroute()": router.aroute}
        figures = await async_rounds(
            variants,
            lambda turn: requests_for(vendor, model, calls, start=(turn + 1) * calls),
            rounds,
            concurrency,
        )
    await raw.aclose()
    if adapter is not None:
        await adapter.aclose()
        adapter.close()
    return figures


def report(vendor: str, mode: str, figures: dict[str, Figures]) -> bool:
    """Print one vendor's rows; the target line of the router's CPU against the fastest raw."""
    routed = next(name for name in figures if name.endswith("()"))
    fastest_name = min(
        (name for name in RAW_FASTEST if name in figures), key=lambda n: figures[n].cpu_us
    )
    floor, default = figures["floor"].cpu_us, figures["default"].cpu_us
    fastest = figures[fastest_name].cpu_us
    for name, figure in figures.items():
        mark = " (fastest raw SDK)" if name == fastest_name else ""
        print(
            f"{vendor:10} {mode:11} {name + mark:32} {figure.cpu_us:9.0f} {figure.wall_ms:9.2f} "
            f"{figure.cpu_us / floor:8.2f} {figure.cpu_us / default:10.2f} "
            f"{figure.cpu_us / fastest:10.2f}"
        )
    # Target figures pair two ways round by round (see calls.per_round).
    ok = _paired(
        vendor,
        mode,
        figures,
        mine=routed,
        theirs=fastest_name,
        label="fastest raw SDK",
        limit=TARGET,
    )
    if vendor in GENAI:
        ok &= _paired(
            vendor,
            mode,
            figures,
            mine=routed,
            theirs="default",
            label="google-genai default",
            limit=GENAI_DEFAULT_TARGET,
        )
        ok &= _paired(
            vendor,
            mode,
            figures,
            mine=ADAPTER_CALL,
            theirs=fastest_name,
            label="fastest raw SDK",
            limit=ADAPTER_CALL_TARGET,
        )
    return ok


def _paired(
    vendor: str,
    mode: str,
    figures: dict[str, Figures],
    *,
    mine: str,
    theirs: str,
    label: str,
    limit: float,
) -> bool:
    ratios = per_round(figures[mine], figures[theirs], operator.truediv)
    paired = median(ratios)
    print(
        f"{vendor:10} {mode:11} {mine} / {label}, median of per-round ratios: {paired:.2f}"
        f" (rounds: {' '.join(f'{ratio:.2f}' for ratio in ratios)})"
    )
    return target(f"route: {vendor} {mine} CPU per call / {label} ({mode})", paired, limit)


def import_ms(statement: str, runs: int = 7) -> float:
    """Median wall time of ``statement`` in a fresh interpreter (everything it imports counts)."""
    code = (
        "import time; started = time.perf_counter(); "
        f"{statement}; print((time.perf_counter() - started) * 1000)"
    )
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return statistics.median(times)


def bench_imports(runs: int) -> bool:
    router_ms = import_ms("import router", runs)
    openai_ms = import_ms("import openai", runs)
    api_ms = import_ms("from router import route, LLMRequest", runs)
    print()
    print(f"{'import':40} {'median ms':>10} {'vs openai':>10}")
    print(f"{'import openai':40} {openai_ms:10.1f} {1:10.0%}")
    print(f"{'import router':40} {router_ms:10.1f} {router_ms / openai_ms:10.1%}")
    print(f"{'from router import route, LLMRequest':40} {api_ms:10.1f} {api_ms / openai_ms:10.1%}")
    print(load_line())
    return target("route: import router / import openai", router_ms / openai_ms, 0.10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="sync calls per block")
    parser.add_argument("--async-calls", type=int, default=500, help="async calls per block")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per way")
    parser.add_argument("--concurrency", type=int, default=50, help="async calls in flight")
    parser.add_argument("--latency-ms", type=float, default=100.0, help="async emulator latency")
    parser.add_argument("--import-runs", type=int, default=7, help="fresh interpreters each")
    parser.add_argument("--vendor", action="append", help="only this vendor (repeatable)")
    parser.add_argument("--mode", choices=("sync", "async"), help="only sync or only async calls")
    args = parser.parse_args()
    ok = True
    with (
        emulator_process() as quick,
        emulator_process("--latency-ms", str(args.latency_ms)) as slow,
    ):
        print(
            f"CPU and wall time per call: sync {args.calls} calls per block against an emulator "
            f"with no latency; async {args.async_calls} per block, {args.concurrency} in flight, "
            f"0 ms and {args.latency_ms:g} ms latency; medians of {args.rounds} rounds"
        )
        print(load_line())
        print(
            f"{'vendor':10} {'mode':11} {'way':32} {'CPU µs':>9} {'wall ms':>9} {'x floor':>8} "
            f"{'x default':>10} {'x fastest':>10}"
        )
        latency = f"{args.latency_ms:g}ms"
        chosen, uncovered = covered(args.vendor or vendors())
        if uncovered:
            print(f"no raw baselines in baselines.py, so not measured: {', '.join(uncovered)}")
        for vendor in chosen:
            if args.mode != "async":
                figures = bench_sync(vendor, emulated_settings(quick), args.calls, args.rounds)
                ok &= report(vendor, "sync", figures)
            if args.mode != "sync":
                for mode, emulator in (("async", quick), (f"async {latency}", slow)):
                    figures = asyncio.run(
                        bench_async(
                            vendor,
                            emulated_settings(emulator),
                            args.async_calls,
                            args.rounds,
                            args.concurrency,
                        )
                    )
                    ok &= report(vendor, mode, figures)
        print(load_line())
    if not args.vendor and not args.mode:
        ok &= bench_imports(args.import_runs)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
