"""The grounding-router command line, run in-process."""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path

import pytest

from router.cli import build_parser, main
from router.emulator import Emulator

ROOT = Path(__file__).resolve().parents[2]
SUBCOMMANDS = ["demo", "route", "extract", "compare", "batch", "als", "emulator", "providers"]
# Each subcommand with the arguments it cannot do without.
MINIMAL_ARGV = {
    "demo": ["demo"],
    "route": ["route"],
    "extract": ["extract", "reply.json", "--vendor", "openai"],
    "compare": ["compare", "question"],
    "batch": ["batch", "in.jsonl", "-o", "out.jsonl"],
    "als": ["als", "out.jsonl"],
    "emulator": ["emulator"],
    "providers": ["providers"],
}


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommand_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`grounding-router COMMAND --help` explains the command and exits 0."""
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    assert f"grounding-router {command}" in capsys.readouterr().out


def test_top_level_help_lists_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    """The top-level help documents every exit code."""
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in SUBCOMMANDS:
        assert command in out
    assert "3 REQUIRED grounding failed" in out


def test_top_level_help_names_every_provider(capsys: pytest.CaptureFixture[str]) -> None:
    """The program's description names each registered provider, so a new row shows there."""
    from adapters.registry import provider, vendors

    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())  # argparse may wrap a label
    for vendor in vendors():
        assert provider(vendor).label in out


def test_unknown_command_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown subcommand exits 2 with argparse's message."""
    with pytest.raises(SystemExit) as exited:
        main(["frobnicate"])
    assert exited.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_providers_lists_every_registry_row(capsys: pytest.CaptureFixture[str]) -> None:
    """`grounding-router providers --json` prints one row per registered vendor."""
    import json

    from adapters.registry import vendors

    assert main(["providers", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["vendor"] for row in rows] == list(vendors())
    assert all("offset_unit" in row["capabilities"] for row in rows)


def test_providers_table_names_each_vendor(capsys: pytest.CaptureFixture[str]) -> None:
    """The table for people shows each vendor with its capabilities."""
    from adapters.registry import vendors

    assert main(["providers"]) == 0
    out = capsys.readouterr().out
    for vendor in vendors():
        assert vendor in out
    assert "offsets in bytes" in out


def test_route_vendor_choices_come_from_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    """`route --vendor` refuses a vendor the registry does not hold, naming the ones it does."""
    from adapters.registry import vendors

    with pytest.raises(SystemExit) as exited:
        main(["route", "--vendor", "nobody", "--model", "m", "hi"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    for vendor in vendors():
        assert vendor in err


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_global_log_options_are_accepted_after_the_subcommand(command: str) -> None:
    """`--log-json` and `--log-level` work after any subcommand, as the README puts them."""
    from router.cli import build_parser

    args = build_parser().parse_args([*MINIMAL_ARGV[command], "--log-json", "--log-level", "debug"])
    assert (args.log_json, args.log_level) == (True, "debug")


def test_global_log_options_before_the_subcommand_are_kept() -> None:
    """Options given before the subcommand are not reset by the subcommand's own defaults."""
    from router.cli import build_parser

    args = build_parser().parse_args(["--log-json", "--log-level", "info", "providers"])
    assert (args.log_json, args.log_level) == (True, "info")


def test_debug_route_example_of_the_readme_runs(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`DEBUG_GROUNDING=true grounding-router route ... --log-json` logs JSON debug events."""
    monkeypatch.setenv("OPENAI_BASE_URL", emulator.openai_base_url)
    monkeypatch.setenv("DEBUG_GROUNDING", "true")
    code = main(
        ["route", "--vendor", "openai", "--model", "gpt-5", "--grounded", "Q", "--log-json"]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    events = [json.loads(line)["event"] for line in err.splitlines()]
    assert "citation_domain_derived" in events


def _command_lines(text: str) -> list[str]:
    """The lines of a text that run ``grounding-router``, continuations joined, and comments,
    redirections, a trailing ``&``, optional ``[...]`` flags and ``(...)`` remarks dropped."""
    lines = []
    for line in re.sub(r"\\\n\s*", " ", text).splitlines():
        if not line.lstrip().startswith("grounding-router "):
            continue
        command = re.split(r"\s{2,}[#(]|\s+#\s|\s[>|]\s|\s&(?:\s|$)", line.strip())[0]
        lines.append(re.sub(r"\s\[[^\]]*\]", "", command).strip())
    return lines


def _documented_examples() -> list[str]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    blocks = re.findall(r"^```(?:sh|bash)\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)
    helps = [parser.description or "" for parser in _subparsers().values()]
    lines = [line for text in [*blocks, *helps] for line in _command_lines(text)]
    return list(dict.fromkeys(lines))


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    actions = build_parser()._subparsers
    assert actions is not None
    chooser = next(a for a in actions._group_actions if isinstance(a, argparse._SubParsersAction))
    return dict(chooser.choices)


def test_documented_examples_are_found() -> None:
    """The README's and each --help's examples are collected (a guard on the parsing below)."""
    examples = _documented_examples()
    assert len(examples) >= 30
    assert {example.split()[1] for example in examples} >= set(SUBCOMMANDS) - {"demo"}


@pytest.mark.parametrize("example", _documented_examples())
def test_documented_example_parses(example: str) -> None:
    """Every command line the README or a --help shows is accepted by the parser as written."""
    build_parser().parse_args(shlex.split(example)[1:])


def test_bad_settings_name_each_variable_and_quote_no_value(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every bad setting is one stderr line naming its environment variable; no value is
    quoted back (a rejected value may be a key), and the exit code is the configuration one."""
    monkeypatch.setenv("GROUNDING_ROUTER_TIMEOUT_S", "abc")
    monkeypatch.setenv(
        "GROUNDING_ROUTER_CREDENTIAL_POOLS",
        '{"openai": [{"anthropic_api_key": "sk-ant-QuotedBackNever7x"}]}',
    )
    assert main(["providers"]) == 5
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0] == "grounding-router: invalid configuration: 2 problems"
    assert lines[1].startswith("  GROUNDING_ROUTER_CREDENTIAL_POOLS: credential_pools['openai'][0]")
    assert lines[2].startswith("  GROUNDING_ROUTER_TIMEOUT_S: Input should be a valid number")
    assert "abc" not in err
    assert "QuotedBackNever" not in err
