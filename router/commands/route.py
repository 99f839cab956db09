"""``grounding-router route``: one request from flags or a JSON file, answer and citations out."""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from pathlib import Path
from typing import Any

from adapters.registry import vendors
from router.commands.exit_codes import ExitCode
from router.commands.file_args import add_save_replies_flag, reply_saver
from router.commands.grounding_flags import add_policy_flags, add_verify_flag, policy_from_args

__all__ = ["default_model", "exit_code_for", "register"]

_DESCRIPTION = """\
Send one request and print the answer with [n] markers and its numbered sources, or the full
response as JSON with --json. The request comes from flags and a prompt (read from stdin when
none is given), or from a JSON file holding an LLMRequest object (--request FILE, '-' for
stdin); flags given with --request override it. The model defaults to the vendor's
(GROUNDING_ROUTER_DEFAULT_MODEL_<VENDOR>, else the registry's: see `grounding-router
providers`); --model VENDOR:MODEL (or VENDOR/MODEL) names both at once.

examples:
  grounding-router route --vendor openai --required "Who won the 2026 Giro?"
  grounding-router route --model vertex:gemini-2.5-flash --grounded --location DE \\
      --schema answer.schema.json "Current ECB deposit rate?"
  echo "Who won the 2026 Giro?" | grounding-router route --vendor openai --grounded
  echo '{"vendor": "openai", ...}' | grounding-router route --request - --json
  grounding-router route --stream --vendor openai --model gpt-5 --grounded "Latest ECB decision?"
  grounding-router route --vendor anthropic --model claude-sonnet-4-5 --required --verify \\
      --min-coverage 0.6 --min-domains 2 --block-domain example.com "Capital of France?"

--json prints JSON here as on every other command; --json-answer asks the model for a JSON
answer (the old spelling --json-output still prints JSON, with a notice).
--stream prints the answer as it arrives and the numbered sources at the end; with --json it
prints one JSON object per event instead (the last one holds the whole response).
--html FILE also writes the outcome as a self-contained HTML report (see `report`)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``route`` subcommand."""
    parser = subparsers.add_parser(
        "route",
        help="send one request and print the answer with its citations",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "prompt", nargs="?", help="the question (the last user message); stdin when left out"
    )
    parser.add_argument("--request", metavar="FILE", help="an LLMRequest as JSON ('-': stdin)")
    parser.add_argument(
        "--vendor", choices=vendors(), help="the provider (see `grounding-router providers`)"
    )
    parser.add_argument(
        "--model",
        metavar="MODEL",
        help="the provider's model (default: the vendor's default); VENDOR:MODEL or "
        "VENDOR/MODEL names the vendor too",
    )
    parser.add_argument("--system", metavar="TEXT", help="a system message")
    parser.add_argument("--grounded", action="store_true", default=None, help="search the web")
    parser.add_argument(
        "--required",
        action="store_true",
        help="REQUIRED grounding (implies --grounded): fail unless the model searched and cited",
    )
    parser.add_argument(
        "--json-answer", action="store_true", help="ask the model for a JSON answer"
    )
    parser.add_argument("--schema", type=Path, metavar="FILE", help="JSON Schema of the answer")
    parser.add_argument("--location", metavar="CC", help="user country, ISO-2 (e.g. DE)")
    parser.add_argument("--request-id", help="id echoed in the response and logs")
    parser.add_argument("--timeout", type=float, metavar="S", help="timeout in seconds")
    parser.add_argument(
        "--temperature",
        type=float,
        metavar="T",
        help="sampling temperature, as the provider reads it (e.g. 0 to 2 for OpenAI)",
    )
    parser.add_argument(
        "--json", action="store_true", dest="json_output", help="print the full LLMResponse as JSON"
    )
    parser.add_argument(
        "--json-output", action="store_true", dest="json_output_old", help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--stream", action="store_true", help="print the answer as it arrives (see above)"
    )
    add_save_replies_flag(parser)
    add_verify_flag(parser)
    add_policy_flags(parser)
    from router.commands.render import add_view_options

    add_view_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Build the request, route it, print the outcome; return the exit code."""
    if args.json_output_old:
        print("grounding-router route: --json-output is now --json", file=sys.stderr)
        args.json_output = True
    try:
        request = build_request(args)
    except (OSError, ValueError) as exc:
        print(f"grounding-router route: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if args.save_replies is not None:
        try:
            saver = reply_saver(args.save_replies)
        except OSError as exc:
            print(f"grounding-router route: {exc}", file=sys.stderr)
            return ExitCode.BAD_INPUT
        request.setdefault("request_id", f"route-{uuid.uuid4().hex[:12]}")
        with saver.saving(str(request["request_id"])):
            code = _send(args, request)
        print(f"grounding-router route: replies kept in {args.save_replies}", file=sys.stderr)
        return code
    return _send(args, request)


def _send(args: argparse.Namespace, request: dict[str, Any]) -> int:
    """Route (or stream) the request, print the outcome; return the exit code."""
    from router.commands.render import (
        error_rows,
        link_choice,
        print_error,
        print_response,
        response_rows,
        write_html,
    )
    from router.errors import RouterError
    from router.router import UnifiedLLMAdapter

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
    if args.verify and response.grounding is None:
        from router.grounding.verification import verify

        response.grounding = verify(response)
    print_response(response, as_json=args.json_output, links=link_choice(args))
    write_html(args.html, response_rows(response), title="grounding report: route")
    return ExitCode.OK


def build_request(args: argparse.Namespace) -> dict[str, Any]:
    """The request dict from --request and the flags (flags win); validated by the router."""
    request: dict[str, Any] = _read_request_file(args.request) if args.request else {}
    prompt = args.prompt
    if prompt is None and not args.request and not sys.stdin.isatty():
        prompt = sys.stdin.read().strip()
    if prompt:
        messages = [{"role": "system", "content": args.system}] if args.system else []
        request["messages"] = [*messages, {"role": "user", "content": prompt}]
    elif "messages" not in request:
        raise ValueError(
            "give a prompt (an argument, or on stdin), or a request file with messages "
            "(--request FILE)"
        )
    vendor, model = _vendor_and_model(args.vendor, args.model)
    overrides = {
        "vendor": vendor,
        "model": model,
        "request_id": args.request_id,
        "timeout_s": args.timeout,
        "temperature": args.temperature,
    }
    request.update({key: value for key, value in overrides.items() if value is not None})
    if args.grounded or args.required:
        request["grounded"] = True
    if args.required:
        request["grounding_mode"] = "REQUIRED"
    if args.json_answer:
        request["json_mode"] = True
    if args.schema:
        request["json_schema"] = _read_json(args.schema.read_text(), f"schema file {args.schema}")
    if args.location:
        request["user_location"] = {**request.get("user_location", {}), "country": args.location}
    policy = policy_from_args(args)
    if policy is not None:
        request["grounding_policy"] = {**(request.get("grounding_policy") or {}), **policy}
    if "vendor" not in request:
        raise ValueError(
            f"--vendor is required (one of {', '.join(vendors())}), or --model VENDOR:MODEL, "
            "or a vendor in the request file"
        )
    if "model" not in request:
        request["model"] = default_model(request["vendor"], args.settings)
    return request


def _vendor_and_model(vendor: str | None, model: str | None) -> tuple[str | None, str | None]:
    """``--model vendor:model`` or ``vendor/model`` names both, unless --vendor is given (then
    the model is taken as written: OpenRouter's models are ``openai/gpt-5``)."""
    if vendor is not None or model is None:
        return vendor, model
    for separator in (":", "/"):
        prefix, found, rest = model.partition(separator)
        if found and rest and prefix.lower() in vendors():
            return prefix.lower(), rest
    raise ValueError(
        f"--model {model!r} needs --vendor (one of {', '.join(vendors())}), "
        "or write it as VENDOR:MODEL"
    )


def default_model(vendor: str, settings: Any) -> str:
    """The model a request names when it names none: the setting, else the registry's."""
    from adapters.registry import PROVIDERS

    row = PROVIDERS.get(vendor)  # type: ignore[call-overload]
    if row is None:
        return ""  # an unknown vendor: the request's own validation names the choices
    configured: str | None = settings.default_model(vendor) if settings is not None else None
    return configured or row.default_model


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
