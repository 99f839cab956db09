"""What route() adds to a raw SDK call, and what `import router` costs beside `import openai`.

Against the in-process emulator, for each vendor it times route() and the raw SDK call that the
adapter makes for the same request (same client settings, same parameters), alternating the two
so machine noise hits both alike, and prints median and p95 per call with the overhead. Then it
times `import router` and `import openai` in fresh interpreters (median of runs).
Targets: route() adds at most 10% to the raw SDK call; `import router` at most 10% of
`import openai`.

    .venv/bin/python scripts/bench/route.py [--calls N] [--latency-ms MS]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from adapters.openai.request import build_response_params
from adapters.vertex.clients import VertexClients, timeout_ms
from adapters.vertex.request import build_config, build_contents, plan_steps
from router.emulated import emulated_settings
from router.emulator import Emulator
from router.settings import RouterSettings
from router.types import LLMRequest
from router.unified_llm_adapter import UnifiedLLMAdapter

QUESTION = "What is the capital of France?"
MODELS = {"openai": "gpt-5", "vertex": "gemini-2.5-flash"}


def raw_call(vendor: str, request: LLMRequest, settings: RouterSettings) -> Callable[[], Any]:
    """The SDK call the adapter makes for ``request``, without the router around it."""
    if vendor == "openai":
        from openai import OpenAI

        client = OpenAI(
            api_key=settings.openai_api_key.get_secret_value(),  # type: ignore[union-attr]
            base_url=settings.openai_base_url,
            max_retries=0,
        )
        params = build_response_params(request)
        return lambda: client.responses.create(**params, timeout=settings.timeout_s)
    vertex = VertexClients().sync_client(settings)
    (step,) = plan_steps(request)
    contents = build_contents(request, step)
    # A pipeline without the router gets the SDK's parsed response (the adapter reads the body).
    config = build_config(request, step, timeout_ms(settings.timeout_s)).model_copy(
        update={"should_return_http_response": None}
    )
    return lambda: vertex.models.generate_content(
        model=request.model, contents=contents, config=config
    )


def timed(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def bench_calls(calls: int, latency_s: float) -> bool:
    ok = True
    print(f"per-call latency against the emulator ({latency_s * 1000:.0f} ms), {calls} calls each")
    print(f"{'vendor':7} {'what':10} {'median ms':>10} {'p95 ms':>8} {'overhead':>9}")
    with Emulator(latency_s=latency_s) as emulator:
        settings = emulated_settings(emulator)
        with UnifiedLLMAdapter(settings) as router:
            for vendor, model in MODELS.items():
                request = LLMRequest.model_validate(
                    {
                        "vendor": vendor,
                        "model": model,
                        "messages": [{"role": "user", "content": QUESTION}],
                        "grounded": True,
                    }
                )
                raw = raw_call(vendor, request, settings)
                for _ in range(20):  # warm-up: clients, pools, caches on both paths
                    router.route(request)
                    raw()
                routed, direct = [], []
                for _ in range(calls):
                    routed.append(timed(lambda request=request: router.route(request)))
                    direct.append(timed(raw))
                overhead = statistics.median(routed) / statistics.median(direct) - 1
                ok &= overhead <= 0.10
                print(
                    f"{vendor:7} {'route()':10} {statistics.median(routed):10.2f} "
                    f"{p95(routed):8.2f} {overhead:8.1%}"
                )
                raw_median = statistics.median(direct)
                print(f"{vendor:7} {'raw SDK':10} {raw_median:10.2f} {p95(direct):8.2f}")
    return ok


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


def bench_imports() -> bool:
    router_ms = import_ms("import router")
    openai_ms = import_ms("import openai")
    api_ms = import_ms("from router import route, LLMRequest")
    ratio = router_ms / openai_ms
    print()
    print(f"{'import':40} {'median ms':>10} {'vs openai':>10}")
    print(f"{'import openai':40} {openai_ms:10.1f} {1:10.0%}")
    print(f"{'import router':40} {router_ms:10.1f} {ratio:10.1%}")
    print(f"{'from router import route, LLMRequest':40} {api_ms:10.1f} {api_ms / openai_ms:10.1%}")
    print(
        f"target: import router at most 10% of import openai: {'met' if ratio <= 0.1 else 'MISSED'}"
    )
    return ratio <= 0.10


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="timed calls per vendor and path")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="emulator latency")
    args = parser.parse_args()
    calls_ok = bench_calls(args.calls, args.latency_ms / 1000)
    print(
        f"target: route() adds at most 10% to the raw SDK call: {'met' if calls_ok else 'MISSED'}"
    )
    imports_ok = bench_imports()
    return 0 if calls_ok and imports_ok else 1


if __name__ == "__main__":
    sys.exit(main())
