"""``grounding-router route``: one request from flags or a JSON file, answer and citations out."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from adapters.registry import vendors
from router.commands.exit_codes import ExitCode

__all__ = ["exit_code_for", "register"]

_DESCRIPTION = """\
Send one request and print the answer with [n] markers and its numbered sources, or the full
response as JSON with --json-output. The request comes from flags and a prompt, or from a JSON
file holding an LLMRequest object (--request FILE, '-' for stdin); flags given with --request
override it.

examples:
  grounding-router route --vendor openai --model gpt-5 --required "Who won the 2026 Giro?"
  grounding-router route --vendor vertex --model gemini-2.5-flash --grounded --location DE \\
      --schema answer.schema.json "Current ECB deposit rate?"
  echo '{"vendor": "openai", ...}' | grounding-router route --request - --json-output
  grounding-router route --stream --vendor openai --model gpt-5 --grounded "Latest ECB decision?"

--stream prints the answer as it arrives and the numbered sources at the end; with --json-output
it prints one JSON object per event instead (the last one holds the whole response).
--html FILE also writes the outcome as a self-contained HTML report (see `report`)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``route`` subcommand."""
    parser = subparsers.add_parser(
        "route",
        help="send one request and print the answer with its citations",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("prompt", nargs="?", help="the question (the last user message)")
    parser.add_argument("--request", metavar="FILE", help="an LLMRequest as JSON ('-': stdin)")
    parser.add_argument(
        "--vendor", choices=vendors(), help="the provider (see `grounding-router providers`)"
    )
    parser.add_argument("--model")
    parser.add_argument("--system", metavar="TEXT", help="a system message")
    parser.add_argument("--grounded", action="store_true", default=None, help="search the web")
    parser.add_argument(
        "--required",
        action="store_true",
        help="REQUIRED grounding (implies --grounded): fail unless the model searched and cited",
    )
    parser.add_argument("--json", action="store_true", help="ask for a JSON answer")
    parser.add_argument("--schema", type=Path, metavar="FILE", help="JSON Schema of the answer")
    parser.add_argument("--location", metavar="CC", help="user country, ISO-2 (e.g. DE)")
    parser.add_argument("--request-id", help="id echoed in the response and logs")
    parser.add_argument("--timeout", type=float, metavar="S", help="timeout in seconds")
    parser.add_argument("--temperature", type=float)
    parser.add_argument(
        "--json-output", action="store_true", help="print the full LLMResponse as JSON"
    )
    parser.add_argument(
        "--stream", action="store_true", help="print the answer as it arrives (see above)"
    )
    from router.commands.render import add_view_options

    add_view_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Build the request, route it, print the outcome; return the exit code."""
    from router.commands.render import (
        error_rows,
        link_choice,
        print_error,
        print_response,
        response_rows,
        write_html,
    )
    from router.errors import RouterError
    from router.unified_llm_adapter import UnifiedLLMAdapter

    try:
        request = build_request(args)
    except (OSError, ValueError) as exc:
        print(f"grounding-router route: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if args.stream:
        from router.commands.stream_output import run_stream

        return run_stream(
            request,
            args.settings,
            as_json=args.json_output,
            exit_code_for=exit_code_for,
            links=link_choice(args),
            html=args.html,
        )
    try:
        with UnifiedLLMAdapter(args.settings) as router:
            response = router.route(request)
    except RouterError as error:
        print_error(error, as_json=args.json_output)
        write_html(args.html, error_rows(error), title="grounding report: route")
        return exit_code_for(error)
    print_response(response, as_json=args.json_output, links=link_choice(args))
    write_html(args.html, response_rows(response), title="grounding report: route")
    return ExitCode.OK


def build_request(args: argparse.Namespace) -> dict[str, Any]:
    """The request dict from --request and the flags (flags win); validated by the router."""
    request: dict[str, Any] = _read_request_file(args.request) if args.request else {}
    if args.prompt:
        messages = [{"role": "system", "content": args.system}] if args.system else []
        request["messages"] = [*messages, {"role": "user", "content": args.prompt}]
    elif "messages" not in request:
        raise ValueError("give a prompt, or a request file with messages (--request FILE)")
    overrides = {
        "vendor": args.vendor,
        "model": args.model,
        "request_id": args.request_id,
        "timeout_s": args.timeout,
        "temperature": args.temperature,
    }
    request.update({key: value for key, value in overrides.items() if value is not None})
    if args.grounded or args.required:
        request["grounded"] = True
    if args.required:
        request["grounding_mode"] = "REQUIRED"
    if args.json:
        request["json_mode"] = True
    if args.schema:
        request["json_schema"] = _read_json(args.schema.read_text(), f"schema file {args.schema}")
    if args.location:
        request["user_location"] = {**request.get("user_location", {}), "country": args.location}
    for needed in ("vendor", "model"):
        if needed not in request:
            raise ValueError(f"--{needed} is required (or give it in the request file)")
    return request


def _read_request_file(name: str) -> dict[str, Any]:
    text = sys.stdin.read() if name == "-" else Path(name).read_text()
    data = _read_json(text, "stdin" if name == "-" else f"request file {name}")
    if not isinstance(data, dict):
        raise ValueError(f"the request must be a JSON object, not {type(data).__name__}")
    return data


def _read_json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where} is not valid JSON: {exc}") from None


def exit_code_for(error: BaseException) -> ExitCode:
    """The documented exit code of a router error."""
    from router.errors import (
        ConfigurationError,
        GroundingValidationError,
        ProviderError,
        RequestValidationError,
        ResponseParseError,
    )

    table: list[tuple[type[BaseException], ExitCode]] = [
        (RequestValidationError, ExitCode.BAD_INPUT),
        (GroundingValidationError, ExitCode.GROUNDING_REQUIRED_FAILED),
        (ProviderError, ExitCode.PROVIDER_ERROR),
        (ConfigurationError, ExitCode.CONFIGURATION_ERROR),
        (ResponseParseError, ExitCode.RESPONSE_UNUSABLE),
    ]
    return next((code for kind, code in table if isinstance(error, kind)), ExitCode.FAILURE)
