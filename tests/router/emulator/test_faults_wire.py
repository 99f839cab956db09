"""Faults as the real clients observe them, chosen by header, prompt directive or plan."""

from __future__ import annotations

import importlib
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openai
import pytest
from google import genai
from google.genai import errors, types

from router.emulator import FAULT_HEADER, FAULT_KINDS, Emulator, FaultPlan

DATA = Path(__file__).resolve().parents[2] / "data"
MATRIX: list[dict[str, Any]] = json.loads((DATA / "emulator_fault_matrix.json").read_text())
STREAM_MATRIX: list[dict[str, Any]] = json.loads(
    (DATA / "emulator_fault_matrix_stream.json").read_text()
)
SEARCH: list[Any] = [{"type": "web_search"}]
GOOGLE_SEARCH = [types.Tool(google_search=types.GoogleSearch())]
MODEL = "gemini-2.5-flash"
PARIS = "What is the capital of France?"
HANG_TIMEOUT_S = 0.3


def openai_call(
    client: openai.OpenAI, spec: str | None, *, stream: bool = False, **extra: Any
) -> Any:
    timeout = HANG_TIMEOUT_S if spec == "hang" else 5.0
    headers = {FAULT_HEADER: spec} if spec else {}
    call = client.with_options(timeout=timeout).responses.create
    options: dict[str, Any] = {"model": "gpt-4o", "input": PARIS, "tools": SEARCH, **extra}
    if stream:
        return list(call(**options, stream=True, extra_headers=headers))
    return call(**options, extra_headers=headers)


def vertex_call(
    client: genai.Client, spec: str | None, *, stream: bool = False, question: str = PARIS
) -> Any:
    timeout_ms = int(HANG_TIMEOUT_S * 1000) if spec == "hang" else 5_000
    http = types.HttpOptions(headers={FAULT_HEADER: spec} if spec else {}, timeout=timeout_ms)
    config = types.GenerateContentConfig(tools=GOOGLE_SEARCH, http_options=http)
    if stream:
        return list(
            client.models.generate_content_stream(model=MODEL, contents=question, config=config)
        )
    return client.models.generate_content(model=MODEL, contents=question, config=config)


def check_outcome(expected: str, call: Callable[[], Any], *, stream: bool) -> None:
    if ":" in expected:
        module, name = expected.split(":")
        with pytest.raises(getattr(importlib.import_module(module), name)):
            call()
        return
    result = call()
    if expected == "incomplete_stream":
        assert result
        assert "response.completed" not in [event.type for event in result]
        return
    assert expected == "answer"
    if stream and isinstance(result[0], types.GenerateContentResponse):
        assert "".join(chunk.text or "" for chunk in result)
    elif stream:
        assert result[-1].type == "response.completed"
    elif isinstance(result, types.GenerateContentResponse):
        assert result.text
    else:
        assert result.output_text


def test_matrices_cover_every_fault_kind() -> None:
    """The tables below name every exported fault kind, for JSON and for streams."""
    for table in (MATRIX, STREAM_MATRIX):
        assert [row["kind"].split(":")[0] for row in table] == list(FAULT_KINDS)


@pytest.mark.parametrize("row", MATRIX, ids=[r["kind"] for r in MATRIX])
def test_openai_client_observes_fault(row: dict[str, Any], openai_client: openai.OpenAI) -> None:
    """The openai client (retries off) sees each fault as the real service would produce it."""
    check_outcome(row["openai"], lambda: openai_call(openai_client, row["kind"]), stream=False)


@pytest.mark.parametrize("row", STREAM_MATRIX, ids=[r["kind"] for r in STREAM_MATRIX])
def test_openai_stream_observes_fault(row: dict[str, Any], openai_client: openai.OpenAI) -> None:
    """The openai client streaming sees each fault as the real service would produce it."""
    check_outcome(
        row["openai"], lambda: openai_call(openai_client, row["kind"], stream=True), stream=True
    )


@pytest.mark.parametrize("row", MATRIX, ids=[r["kind"] for r in MATRIX])
def test_vertex_client_observes_fault(row: dict[str, Any], vertex_client: genai.Client) -> None:
    """The genai client (no retries by default) sees each fault as Vertex would produce it."""
    check_outcome(row["vertex"], lambda: vertex_call(vertex_client, row["kind"]), stream=False)


@pytest.mark.parametrize("row", STREAM_MATRIX, ids=[r["kind"] for r in STREAM_MATRIX])
def test_vertex_stream_observes_fault(row: dict[str, Any], vertex_client: genai.Client) -> None:
    """The genai client streaming sees each fault as Vertex would produce it."""
    check_outcome(
        row["vertex"], lambda: vertex_call(vertex_client, row["kind"], stream=True), stream=True
    )


def test_openai_rate_limit_body_and_retry_after(openai_client: openai.OpenAI) -> None:
    """A 429 has OpenAI's error body and the Retry-After the spec asked for."""
    with pytest.raises(openai.RateLimitError) as caught:
        openai_call(openai_client, "429:2")
    assert caught.value.code == "rate_limit_exceeded"
    assert set(caught.value.body) == {"message", "type", "param", "code"}  # type: ignore[arg-type]
    assert caught.value.response.headers["retry-after"] == "2"


def test_vertex_rate_limit_body_and_retry_after(vertex_client: genai.Client) -> None:
    """A 429 has Google's error body ({code, message, status}) and a Retry-After header."""
    with pytest.raises(errors.ClientError) as caught:
        vertex_call(vertex_client, "429:3")
    assert caught.value.code == 429
    assert caught.value.status == "RESOURCE_EXHAUSTED"
    assert set(caught.value.details["error"]) == {"code", "message", "status"}
    assert caught.value.response.headers["retry-after"] == "3"


@pytest.mark.parametrize("status", [502, 503])
def test_html_page_status(status: int, openai_client: openai.OpenAI) -> None:
    """An html fault answers the proxy's page with the status asked for."""
    with pytest.raises(openai.InternalServerError) as caught:
        openai_call(openai_client, f"html:{status}")
    assert caught.value.status_code == status
    assert caught.value.response.headers["content-type"].startswith("text/html")


def test_count_lets_the_next_identical_attempt_succeed(
    openai_client: openai.OpenAI, vertex_client: genai.Client
) -> None:
    """With `*1`, the first attempt fails and the identical retry succeeds."""
    with pytest.raises(openai.InternalServerError):
        openai_call(openai_client, "503*1")
    assert openai_call(openai_client, "503*1").output_text
    with pytest.raises(errors.ServerError):
        vertex_call(vertex_client, "503*1")
    assert vertex_call(vertex_client, "503*1").text


def test_count_is_kept_per_request(openai_client: openai.OpenAI) -> None:
    """Each distinct request body has its own attempt count."""
    with pytest.raises(openai.InternalServerError):
        openai_call(openai_client, "500*1")
    with pytest.raises(openai.InternalServerError):
        openai_call(openai_client, "500*1", instructions="Be brief.")
    assert openai_call(openai_client, "500*1").output_text


def test_prompt_directive_picks_the_fault(
    openai_client: openai.OpenAI, vertex_client: genai.Client
) -> None:
    """A [[emulator:fault=SPEC]] in the prompt faults that request, through any client."""
    question = f"{PARIS} [[emulator:fault=429*1]]"
    with pytest.raises(openai.RateLimitError):
        openai_call(openai_client, None, input=question)
    with pytest.raises(errors.ClientError):
        vertex_call(vertex_client, None, question=question)
    assert "emulator" not in openai_call(openai_client, None, input=question).output_text


def test_directive_scoped_to_an_api_faults_that_api_only(
    openai_client: openai.OpenAI, vertex_client: genai.Client
) -> None:
    """[[emulator:fault=500@vertex]] fails the Vertex request; OpenAI answers the same prompt."""
    question = f"{PARIS} [[emulator:fault=500@vertex]]"
    with pytest.raises(errors.ServerError):
        vertex_call(vertex_client, None, question=question)
    assert openai_call(openai_client, None, input=question).output_text


def test_each_api_takes_the_first_directive_that_applies_to_it(
    openai_client: openai.OpenAI, vertex_client: genai.Client
) -> None:
    """One prompt, a fault per API: each request gets its own."""
    question = f"{PARIS} [[emulator:fault=429@openai]] [[emulator:fault=401@vertex]]"
    with pytest.raises(openai.RateLimitError):
        openai_call(openai_client, None, input=question)
    with pytest.raises(errors.ClientError) as caught:
        vertex_call(vertex_client, None, question=question)
    assert caught.value.code == 401


def test_scoped_header_and_plan_spare_other_apis(
    emulator: Emulator, openai_client: openai.OpenAI
) -> None:
    """A header or plan fault scoped to Vertex leaves OpenAI requests alone."""
    assert openai_call(openai_client, "500@vertex").output_text
    emulator.faults = FaultPlan.always("500@vertex")
    assert openai_call(openai_client, None).output_text
    emulator.faults = None


def test_directive_does_not_change_the_answer(openai_client: openai.OpenAI) -> None:
    """The answer to a prompt with a directive is the answer to the prompt without it."""
    plain = openai_call(openai_client, None).output_text
    directed = openai_call(openai_client, None, input=f"[[emulator:fault=delay:0.01]] {PARIS}")
    assert directed.output_text == plain


def test_header_wins_over_directive(openai_client: openai.OpenAI) -> None:
    """The request header is consulted before the prompt directive."""
    with pytest.raises(openai.AuthenticationError):
        openai_call(openai_client, "401", input=f"{PARIS} [[emulator:fault=500]]")


def test_emulator_plan_applies_to_every_request(
    emulator: Emulator, openai_client: openai.OpenAI
) -> None:
    """A fixed FaultPlan set on the running emulator applies from the next request on."""
    emulator.faults = FaultPlan.always("500")
    with pytest.raises(openai.InternalServerError):
        openai_call(openai_client, None)
    emulator.faults = None
    assert openai_call(openai_client, None).output_text


def test_rate_plan_faults_the_texts_it_chooses(
    emulator: Emulator, openai_client: openai.OpenAI
) -> None:
    """With a rate mix, exactly the prompts the plan picks get the fault."""
    plan = FaultPlan.mix({"500": 0.5}, seed=11)
    emulator.faults = plan
    prompts = [f"What happened in the year {year}?" for year in range(1900, 1920)]
    outcomes = []
    for prompt in prompts:
        try:
            openai_call(openai_client, None, input=prompt)
            outcomes.append(False)
        except openai.InternalServerError:
            outcomes.append(True)
    assert outcomes == [plan.choose(p) is not None for p in prompts]
    assert 0 < sum(outcomes) < len(prompts)


def test_unknown_fault_is_a_bad_request(openai_client: openai.OpenAI) -> None:
    """A malformed fault spec is refused with a 400 that says why."""
    with pytest.raises(openai.BadRequestError) as caught:
        openai_call(openai_client, "teapot")
    assert "emulator" in caught.value.message


def test_applied_fault_is_logged(emulator: Emulator, openai_client: openai.OpenAI) -> None:
    """The request log records the fault each attempt got, and none once the count is spent."""
    with pytest.raises(openai.RateLimitError):
        openai_call(openai_client, "429:2*1")
    openai_call(openai_client, "429:2*1")
    assert [r.fault for r in emulator.requests] == ["429:2*1", None]


def test_openai_no_search(openai_client: openai.OpenAI) -> None:
    """no_search: an answer with no web_search_call and no annotation."""
    response = openai_call(openai_client, "no_search")
    assert [item.type for item in response.output] == ["message"]
    assert response.output[0].content[0].annotations == []


def test_openai_no_citations(openai_client: openai.OpenAI) -> None:
    """no_citations: searches with queries ran, but nothing is cited or listed as a source."""
    response = openai_call(
        openai_client, "no_citations", include=["web_search_call.action.sources"]
    )
    calls = [item for item in response.output if item.type == "web_search_call"]
    assert calls
    assert calls[0].action.query
    assert all(c.action.sources == [] for c in calls)
    assert response.output[-1].content[0].annotations == []
    assert "http" not in response.output_text


def test_vertex_no_search(vertex_client: genai.Client) -> None:
    """no_search: the candidate has no groundingMetadata at all."""
    response = vertex_call(vertex_client, "no_search")
    assert response.candidates[0].grounding_metadata is None


def test_vertex_no_citations(vertex_client: genai.Client) -> None:
    """no_citations: queries and the entry point are there; chunks and supports are not."""
    found = vertex_call(vertex_client, "no_citations").candidates[0].grounding_metadata
    assert found.web_search_queries
    assert found.search_entry_point is not None
    assert found.grounding_chunks is None
    assert found.grounding_supports is None


def test_vertex_empty_grounding_on_the_wire(emulator: Emulator) -> None:
    """empty_grounding: the body says `"groundingMetadata": {}` literally."""
    path = f"/v1beta1/projects/p/locations/l/publishers/google/models/{MODEL}:generateContent"
    request = urllib.request.Request(
        emulator.vertex_base_url + path,
        data=json.dumps(
            {"contents": [{"parts": [{"text": PARIS}]}], "tools": [{"googleSearch": {}}]}
        ).encode(),
        headers={"Authorization": "Bearer t", FAULT_HEADER: "empty_grounding"},
    )
    with urllib.request.urlopen(request, timeout=5) as reply:
        body = json.loads(reply.read())
    assert body["candidates"][0]["groundingMetadata"] == {}


def test_hang_ends_when_the_emulator_stops() -> None:
    """A hanging request does not hold up shutdown: the client sees the connection close."""
    emulator = Emulator().start()
    outcome: list[BaseException] = []

    def send() -> None:
        request = urllib.request.Request(
            emulator.openai_base_url + "/responses",
            data=json.dumps({"model": "gpt-4o", "input": PARIS}).encode(),
            headers={"Authorization": "Bearer t", FAULT_HEADER: "hang"},
        )
        try:
            urllib.request.urlopen(request, timeout=60).read()
        except Exception as exc:
            outcome.append(exc)

    client = threading.Thread(target=send)
    client.start()
    emulator.wait_for_requests(1)
    emulator.stop()
    client.join()
    assert outcome
    assert isinstance(outcome[0], urllib.error.URLError | ConnectionError)
