"""What tracing costs a routed call: nothing measurable when off, a little when recording.

Against the in-process emulator it times route() for each vendor three ways, alternating so
machine noise hits all alike: a router without tracing (no tracer provider configured: the
baseline), the same with the OpenTelemetry SDK recording every span (SimpleSpanProcessor, an
exporter that drops them), and it times the tracing check alone when off (entering and leaving
the span of a call that is not traced), in a fresh interpreter that never imported OpenTelemetry
(an application that does not trace) and here, where the API is imported but no provider is set.
It also times recording alone (starting, filling and ending one call's span, with a response),
as the routed calls' own noise hides it. Targets: the check costs at most 0.5% of an untraced
routed call; recording at most 5%.

    .venv/bin/python scripts/bench/tracing.py [--calls N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from targets import load_line, target

from adapters.registry import PROVIDERS
from router.emulated import emulated_settings
from router.emulator import Emulator
from router.router import UnifiedLLMAdapter
from router.types import LLMRequest

QUESTION = "What is the capital of France?"
CHECKS = 100_000
RECORDINGS = 2_000


class DroppingExporter(SpanExporter):
    """Exports by dropping: what is timed is recording the span, not shipping it."""

    def export(self, _spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


def timed(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


CHECK = f"""
import time
from router.settings import RouterSettings
from router.tracing import Tracing
from router.types import LLMRequest
from adapters.registry import provider

tracing = Tracing(RouterSettings(_env_file=None))
request = LLMRequest(vendor="openai", model="gpt-5", messages=[{{"role": "user", "content": "q"}}])
started = time.perf_counter()
for _ in range({CHECKS}):
    with tracing.route(request, provider("openai")) as span:
        span.succeeded
print((time.perf_counter() - started) / {CHECKS} * 1e6)
"""


def recording_cost_us(router: UnifiedLLMAdapter, request: LLMRequest, response: Any) -> float:
    """Microseconds to start, fill and end the span of one call of ``request``."""
    row = PROVIDERS[request.vendor]
    started = time.perf_counter()
    for _ in range(RECORDINGS):
        with router.tracing.route(request, row) as span:
            span.succeeded(response)
    return (time.perf_counter() - started) / RECORDINGS * 1e6


def check_cost_us(*, api_imported: bool) -> float:
    """Microseconds per call of entering and leaving an untraced call's span."""
    code = ("import opentelemetry.trace\n" if api_imported else "") + CHECK
    finished = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return float(finished.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="timed calls per vendor and way")
    args = parser.parse_args()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(DroppingExporter()))
    ok = True
    shares: dict[str, float] = {}
    fastest_off = float("inf")
    print(f"route() against the emulator, {args.calls} calls per vendor and way")
    print(f"{'vendor':7} {'tracing':10} {'median ms':>10} {'p95 ms':>8} {'vs off':>8}")
    with Emulator() as emulator:
        settings = emulated_settings(emulator)
        with (
            UnifiedLLMAdapter(settings) as off,
            UnifiedLLMAdapter(settings, tracer_provider=provider) as on,
        ):
            for vendor, row in PROVIDERS.items():
                model = row.default_model
                request = LLMRequest.model_validate(
                    {
                        "vendor": vendor,
                        "model": model,
                        "messages": [{"role": "user", "content": QUESTION}],
                        "grounded": True,
                    }
                )
                for _ in range(20):  # warm-up: clients, pools, caches on both paths
                    off.route(request)
                    on.route(request)
                untraced, recorded = [], []
                for _ in range(args.calls):
                    untraced.append(timed(lambda request=request: off.route(request)))
                    recorded.append(timed(lambda request=request: on.route(request)))
                base = statistics.median(untraced)
                ratio = statistics.median(recorded) / base - 1
                p95 = statistics.quantiles(untraced, n=20, method="inclusive")[18]
                print(f"{vendor:7} {'off':10} {base:10.2f} {p95:8.2f}")
                p95 = statistics.quantiles(recorded, n=20, method="inclusive")[18]
                print(
                    f"{vendor:7} {'recording':10} {statistics.median(recorded):10.2f} "
                    f"{p95:8.2f} {ratio:7.1%}"
                )
                fastest_off = min(fastest_off, base)
                recording_us = recording_cost_us(on, request, on.route(request))
                share = recording_us / (base * 1000)
                shares[vendor] = share
                alone = f"{recording_us:.1f} us"
                print(f"{vendor:7} {'recording a span alone:':27} {alone:>10} {share:8.2%}")
    print()
    print(f"{'the tracing check of an untraced call':44} {'us':>6} {'of a call':>10}")
    checks: dict[str, float] = {}
    for label, imported in (("OpenTelemetry never imported", False), ("API imported", True)):
        check_us = check_cost_us(api_imported=imported)
        checks[label] = check_us / (fastest_off * 1000)
        print(f"{label:44} {check_us:6.2f} {checks[label]:10.3%}")
    print(load_line())
    for vendor, share in shares.items():
        ok &= target(f"tracing: {vendor} recording a span / routed call", share * 100, 5, "%")
    for label, share in checks.items():
        ok &= target(f"tracing: check when off ({label}) / call", share * 100, 0.5, "%")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
