"""Batch throughput against the raw async SDK clients, with the ideal as the floor.

For each vendor: N requests (REQUIRED grounding, distinct prompts) against an emulator with a
fixed latency, at the same concurrency, each variant in a fresh process of its own:

- raw SDK: `openai.AsyncOpenAI` / `genai.Client(...).aio` as the SDKs make them by default
  (openai on httpx2; google-genai on aiohttp, since aiohttp is installed, with `trust_env`),
  sending the very requests the adapters send, bounded by a semaphore (no extraction, no
  output file). The targets are read against this row;
- raw, router's HTTP: the same on the transport the adapters choose (aiohttp for both, without
  per-request proxy lookups when no proxy is set), so batch over this row is the router's own
  cost;
- batch: `run_batch` with one process;
- batch --workers 2: worker processes, the parent writing the one output file;
- 2 x batch, halves: two independent one-process runs at once, each on half the input at half
  the concurrency, with nothing shared. This is the most two processes can give on this machine
  (the emulator shares its cores), so it is the bound `--workers 2` is read against.

It prints wall time, the ratio to the ideal (N x latency / concurrency) and to the raw SDK run,
and peak RSS per process. The emulator runs in its own process. Targets: one process at most
1.15x the raw SDK; two workers at most 0.65x the raw SDK; RSS under 300 MB per worker.

With ``--engine ray`` it compares the engines instead, for 2,000 and 10,000 requests (both
vendors, one in 50 scripted to get a 429 answered on the retry): ``batch --workers 2`` against
``batch --engine ray`` on a local cluster the run starts (its start counted in its wall time),
each in a fresh process, and the provider calls the emulator saw. Targets: the Ray engine at
most 1.5x the local engine's wall time at 10,000 requests; calls = requests + scripted retries.

    .venv/bin/python scripts/bench/batch.py [--requests N] [--latency-ms MS] [--concurrency C]
    .venv/bin/python scripts/bench/batch.py --engine ray [--sizes 2000,10000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the emulator-process helper of the test suite

from support.emulator_process import EmulatorAddresses, emulator_process  # noqa: E402

MODELS = {"openai": "gpt-5", "vertex": "gemini-2.5-flash"}
TIMEOUT_S = 60
VARIANTS = ("raw", "raw-tuned", "batch", "workers")
ENGINE_VARIANTS = ("workers", "ray")
RETRY_EVERY = 50  # one request in this many gets a 429 once
NAMES = {
    "raw": "raw async SDK",
    "raw-tuned": "raw, router's HTTP",
    "batch": "batch",
    "workers": "batch --workers 2",
    "halves": "2 x batch, halves",
}


def settings_for(port: int, *, retry: bool = False) -> Any:
    """Settings for the emulator running in another process on ``port``.

    ``retry``: a scripted 429 is retried at once, as its Retry-After of 0 says.
    """
    from router.emulated import emulated_settings

    base = f"http://127.0.0.1:{port}"
    waits = {"retry_initial_delay_s": 0.0, "retry_max_delay_s": 0.0} if retry else {}
    return emulated_settings(EmulatorAddresses(f"{base}/v1", base), timeout_s=TIMEOUT_S, **waits)


def write_input(path: Path, vendor: str, count: int) -> None:
    with path.open("w") as handle:
        for number in range(count):
            request = {
                "request_id": f"{vendor}-{number}",
                "vendor": vendor,
                "model": MODELS[vendor],
                "messages": [{"role": "user", "content": f"What changed in district {number}?"}],
                "grounded": True,
                "grounding_mode": "REQUIRED",
            }
            handle.write(json.dumps(request) + "\n")


async def raw_sdk(source: Path, port: int, concurrency: int, *, tuned: bool) -> None:
    """The adapters' requests sent straight through the async SDK clients.

    Not ``tuned``: each client as the SDK makes it by default (httpx2 for openai; aiohttp with
    ``trust_env`` for google-genai, as aiohttp is installed). ``tuned``: on the transport the
    adapters use, so that the difference to the batch is the router's own work.
    """
    from adapters.openai.request import build_response_params
    from adapters.vertex.clients import VertexClients, timeout_ms
    from adapters.vertex.request import build_config, build_contents, plan_steps
    from router.emulated import EMULATOR_API_KEY
    from router.types import LLMRequest

    settings = settings_for(port)
    requests = [LLMRequest.model_validate_json(line) for line in source.read_text().splitlines()]
    gate = asyncio.Semaphore(concurrency)
    if requests[0].vendor == "openai":
        from openai import AsyncOpenAI, DefaultAioHttpClient

        client = AsyncOpenAI(
            api_key=EMULATOR_API_KEY,
            base_url=settings.openai_base_url,
            max_retries=0,
            **({"http_client": DefaultAioHttpClient()} if tuned else {}),
        )

        async def send(request: LLMRequest) -> None:
            async with gate:
                await client.responses.create(
                    **build_response_params(request), timeout=settings.timeout_s
                )

        await asyncio.gather(*(send(r) for r in requests))
        await client.close()
        return
    clients = VertexClients()  # closes its own clients; a default client is closed below
    aio = clients.async_client(settings) if tuned else default_genai_client(settings).aio

    async def send_vertex(request: LLMRequest) -> None:
        (step,) = plan_steps(request)
        async with gate:
            await aio.models.generate_content(
                model=request.model,
                contents=build_contents(request, step),
                # The SDK's parsed response, as a pipeline without the router gets it.
                config=build_config(request, step, timeout_ms(settings.timeout_s)).model_copy(
                    update={"should_return_http_response": None}
                ),
            )

    await asyncio.gather(*(send_vertex(r) for r in requests))
    if not tuned:
        await aio.aclose()
    await clients.aclose()


def default_genai_client(settings: Any) -> Any:
    """``genai.Client`` for Vertex AI with the SDK's own transport; its retries off, as ours."""
    from google import genai
    from google.genai import types
    from google.oauth2.credentials import Credentials

    from adapters.vertex.clients import timeout_ms

    return genai.Client(
        vertexai=True,
        project=settings.google_cloud_project,
        location=settings.google_cloud_location,
        credentials=Credentials(token=settings.vertex_access_token.get_secret_value()),
        http_options=types.HttpOptions(
            base_url=settings.vertex_base_url,
            timeout=timeout_ms(settings.timeout_s),
            retry_options=types.HttpRetryOptions(attempts=1),
        ),
    )


def write_engine_input(path: Path, count: int) -> int:
    """Both vendors alternating, one request in RETRY_EVERY with a 429 once; the retries."""
    with path.open("w") as handle:
        for number in range(count):
            vendor = ("openai", "vertex")[number % 2]
            fault = "[[emulator:fault=429:0*1]]" if number % RETRY_EVERY == 0 else ""
            question = f"What changed in area {number}? {fault}"
            request = {
                "request_id": f"r{number}",
                "vendor": vendor,
                "model": MODELS[vendor],
                "messages": [{"role": "user", "content": question}],
                "grounded": True,
                "grounding_mode": "REQUIRED",
            }
            handle.write(json.dumps(request) + "\n")
    return len(range(0, count, RETRY_EVERY))


def run_on_ray(source: Path, port: int, concurrency: int) -> dict[str, Any]:
    """The Ray engine on a local cluster started here: its start, then the job."""
    from router.batch.ray_engine.cluster import connect

    started = time.perf_counter()
    connect(None)
    cluster_s = time.perf_counter() - started
    run_to_the_end(source, port, concurrency, engine="ray")
    return {"wall_s": time.perf_counter() - started, "cluster_s": cluster_s}


def run_to_the_end(source: Path, port: int, concurrency: int, **options: Any) -> None:
    """``run_batch`` over ``source`` into a scratch file; every request must be answered."""
    from router.batch import run_batch

    with tempfile.TemporaryDirectory() as scratch:
        summary = run_batch(
            source,
            Path(scratch) / "out.jsonl",
            settings=settings_for(port, retry=True),
            concurrency=concurrency,
            **options,
        )
    if summary.outcomes.get("ok") != summary.total:
        raise SystemExit(f"not every request answered: {summary.outcomes}")


def run_variant(variant: str, source: Path, port: int, concurrency: int) -> dict[str, Any]:
    """Run one variant in this process; report wall time and peak RSS (self and children)."""
    if variant == "ray":
        return run_on_ray(source, port, concurrency)
    started = time.perf_counter()
    if variant in ("raw", "raw-tuned"):
        asyncio.run(raw_sdk(source, port, concurrency, tuned=variant == "raw-tuned"))
    else:
        run_to_the_end(source, port, concurrency, workers=2 if variant == "workers" else 1)
    wall = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"wall_s": wall, "rss_mb": own, "worker_rss_mb": children}


def child_command(variant: str, source: Path, port: int, concurrency: int) -> list[str]:
    return [
        sys.executable,
        __file__,
        "--variant",
        variant,
        "--input",
        str(source),
        "--port",
        str(port),
        "--concurrency",
        str(concurrency),
    ]


CHILD_ENV = {**os.environ, "PYTHONWARNINGS": "ignore"}


def child_figures(returncode: int, stdout: str, stderr: str) -> dict[str, Any]:
    if returncode != 0:
        print(stderr[-2000:], file=sys.stderr)
        raise SystemExit(1)
    figures: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    return figures


def run_child(variant: str, source: Path, port: int, concurrency: int) -> dict[str, Any]:
    """One variant in a fresh process of its own; its figures."""
    child = subprocess.run(
        child_command(variant, source, port, concurrency),
        capture_output=True,
        text=True,
        check=False,
        env=CHILD_ENV,
    )
    return child_figures(child.returncode, child.stdout, child.stderr)


def run_halves(source: Path, port: int, concurrency: int) -> dict[str, Any]:
    """Two one-process batches at once, each on half of ``source``; the slower one's figures."""
    lines = source.read_text().splitlines(keepends=True)
    halves = [source.with_suffix(f".half{n}.jsonl") for n in (0, 1)]
    for number, half in enumerate(halves):
        half.write_text("".join(lines[number::2]))
    children = [
        subprocess.Popen(
            child_command("batch", half, port, max(1, concurrency // 2)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=CHILD_ENV,
        )
        for half in halves
    ]
    outputs = [child.communicate() for child in children]
    figures = [
        child_figures(child.returncode, *output)
        for child, output in zip(children, outputs, strict=True)
    ]
    return {
        "wall_s": max(f["wall_s"] for f in figures),
        "rss_mb": max(f["rss_mb"] for f in figures),
        "worker_rss_mb": 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="requests per vendor")
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--engine", choices=["local", "ray"], default="local")
    parser.add_argument(
        "--sizes", default="2000,10000", help="with --engine ray: requests per comparison"
    )
    parser.add_argument("--variant", choices=(*VARIANTS, "ray"), help=argparse.SUPPRESS)
    parser.add_argument("--input", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:  # a child run: one variant, its figures as JSON on stdout
        print(json.dumps(run_variant(args.variant, args.input, args.port, args.concurrency)))
        return 0
    if args.engine == "ray":
        sizes = [int(size) for size in args.sizes.split(",")]
        return compare_engines(sizes, args.latency_ms, args.concurrency)

    ideal = args.requests * args.latency_ms / 1000 / args.concurrency
    ok = True
    print(
        f"{args.requests} requests per vendor, {args.latency_ms:.0f} ms latency, concurrency "
        f"{args.concurrency}: ideal {ideal:.2f} s"
    )
    print(
        f"{'vendor':7} {'variant':18} {'wall s':>7} {'x ideal':>8} {'x raw':>6} "
        f"{'RSS MB':>7} {'worker MB':>9}"
    )
    with (
        emulator_process("--latency-ms", str(args.latency_ms)) as emulator,
        tempfile.TemporaryDirectory() as scratch,
    ):
        port = urlsplit(emulator.vertex_base_url).port
        assert port is not None
        for vendor in MODELS:
            source = Path(scratch) / f"{vendor}.jsonl"
            write_input(source, vendor, args.requests)
            results = {
                variant: run_child(variant, source, port, args.concurrency) for variant in VARIANTS
            }
            results["halves"] = run_halves(source, port, args.concurrency)
            raw = results["raw"]["wall_s"]
            for variant, name in NAMES.items():
                figures = results[variant]
                worker_mb = figures["worker_rss_mb"] if variant == "workers" else 0.0
                print(
                    f"{vendor:7} {name:18} {figures['wall_s']:7.2f} "
                    f"{figures['wall_s'] / ideal:8.2f} {figures['wall_s'] / raw:6.2f} "
                    f"{figures['rss_mb']:7.0f} {worker_mb:9.0f}"
                )
            bound = results["workers"]["wall_s"] / results["halves"]["wall_s"]
            print(f"{vendor:7} --workers 2 over the two-process bound: {bound:.2f}x")
            ok &= results["batch"]["wall_s"] <= 1.15 * raw
            ok &= results["workers"]["wall_s"] <= 0.65 * raw
            ok &= max(results[v]["rss_mb"] for v in VARIANTS) < 300
            ok &= results["workers"]["worker_rss_mb"] < 300
    print(
        "targets: batch <= 1.15x raw, workers <= 0.65x raw, RSS < 300 MB per process:",
        "met" if ok else "MISSED",
    )
    return 0 if ok else 1


def compare_engines(sizes: list[int], latency_ms: float, concurrency: int) -> int:
    """The local engine (two workers) against the Ray engine, per size; calls counted."""
    import logging

    import structlog

    from router.emulator import Emulator

    # The emulator runs in this process: its start and stop events would break up the table.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    print(
        f"{latency_ms:.0f} ms latency, concurrency {concurrency}, one request in {RETRY_EVERY} "
        "with a 429 answered on the retry; an emulator in this process counts the calls"
    )
    print(
        f"{'requests':>8} {'engine':18} {'wall s':>7} {'x local':>8} {'cluster s':>9} "
        f"{'calls':>7} {'expected':>8}"
    )
    ok = True
    with tempfile.TemporaryDirectory() as scratch:
        for size in sizes:
            source = Path(scratch) / f"in-{size}.jsonl"
            expected = size + write_engine_input(source, size)
            results = {}
            for variant in ENGINE_VARIANTS:
                # A fresh emulator per run: its scripted 429s fire anew, its count starts at 0.
                with Emulator(latency_s=latency_ms / 1000, log_limit=2 * expected) as emulator:
                    figures = run_child(variant, source, emulator.port, concurrency)
                    figures["calls"] = len(emulator.requests)
                results[variant] = figures
            local = results["workers"]["wall_s"]
            for variant, name in (("workers", "local --workers 2"), ("ray", "ray (local)")):
                figures = results[variant]
                cluster = f"{figures['cluster_s']:9.2f}" if "cluster_s" in figures else f"{'-':>9}"
                print(
                    f"{size:8} {name:18} {figures['wall_s']:7.2f} "
                    f"{figures['wall_s'] / local:8.2f} {cluster} {figures['calls']:7} {expected:8}"
                )
                ok &= figures["calls"] == expected
            if size == max(sizes):
                ok &= results["ray"]["wall_s"] <= 1.5 * local
    print(
        f"targets: ray <= 1.5x local at {max(sizes)} requests, calls = requests + retries:",
        "met" if ok else "MISSED",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
