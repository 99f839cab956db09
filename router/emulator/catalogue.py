"""What the emulator answers: a small scenario catalogue, and a deterministic fallback.

An :class:`Answer` is provider-neutral: claims (sentences) that cite sources by index, the
sources, and the search queries. The provider modules turn it into each wire format.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache

from router.emulator.ids import rng_for
from router.emulator.sites import Source, SourceKind, pick_sites

__all__ = ["SCENARIOS", "Answer", "Claim", "Scenario", "answer_for", "topic_of"]


@dataclass(frozen=True)
class Claim:
    """One sentence of an answer and the sources (indices) it rests on, in citing order."""

    text: str
    cites: tuple[int, ...]


@dataclass(frozen=True)
class Answer:
    """A grounded answer: claims, the sources they cite (plus uncited results), the queries."""

    topic: str
    queries: tuple[str, ...]
    claims: tuple[Claim, ...]
    sources: tuple[Source, ...]

    @property
    def plain_text(self) -> str:
        """The claims as one paragraph, with no citation markers."""
        return " ".join(claim.text for claim in self.claims)


@dataclass(frozen=True)
class Scenario:
    """A catalogue entry: it answers questions that contain every word of one keyword set."""

    keywords: tuple[tuple[str, ...], ...]
    answer: Answer

    def matches(self, folded_question: str) -> bool:
        return any(all(k in folded_question for k in words) for words in self.keywords)


def _src(url: str, title: str, domain: str, kind: SourceKind = "web") -> Source:
    return Source(url=url, title=title, domain=domain, kind=kind)


_WIKI = "wikipedia.org"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        keywords=(("capital", "france"),),
        answer=Answer(
            topic="the capital of France",
            queries=("capital of France", "Paris population INSEE"),
            claims=(
                Claim(
                    "The capital of France is **Paris**, which is also its largest city.", (0, 1)
                ),
                Claim(
                    "About 2.1 million people live in the city proper and more than 12 million "
                    "in the wider Île-de-France region.",
                    (2, 0),
                ),
                Claim(
                    "Paris has been the seat of government for most of the time since the "
                    "10th century — the main exception being the Vichy years.",
                    (1,),
                ),
                Claim("A short video from the tourism office introduces its districts.", (3,)),
            ),
            sources=(
                _src("https://en.wikipedia.org/wiki/Paris", "Paris - Wikipedia", _WIKI),
                _src(
                    "https://www.britannica.com/place/Paris",
                    "Paris | Definition, Map, Population, Facts, & History | Britannica",
                    "britannica.com",
                ),
                _src(
                    "https://www.insee.fr/fr/statistiques/fichier/8268838/ip2033.pdf",
                    "Recensement de la population en Île-de-France",
                    "insee.fr",
                    "doc",
                ),
                _src(
                    "https://www.youtube.com/watch?v=Kx7pL2rMHqE",
                    "Paris in 4 minutes | Paris je t’aime - YouTube",
                    "youtube.com",
                    "video",
                ),
                _src(
                    "https://www.paris.fr/pages/paris-en-chiffres-7142",
                    "Paris en chiffres - Ville de Paris",
                    "paris.fr",
                ),
            ),
        ),
    ),
    Scenario(
        keywords=(("tallest", "alberta"), ("highest", "alberta")),
        answer=Answer(
            topic="the tallest mountain in Alberta",
            queries=(
                "tallest mountain in Alberta",
                "Mount Columbia elevation 3747 m",
                "Columbia Icefield site:pc.gc.ca",
            ),
            claims=(
                Claim(
                    "The tallest mountain in Alberta is **Mount Columbia**, at 3,747 m "
                    "(12,294 ft).",
                    (0, 1),
                ),
                Claim(
                    "It sits on the Alberta–British Columbia border in Jasper National Park, at "
                    "the edge of the Columbia Icefield.",
                    (2, 0),
                ),
                Claim("A Parks Canada report describes the icefield’s retreat since 1900.", (3,)),
            ),
            sources=(
                _src(
                    "https://www.britannica.com/place/Mount-Columbia",
                    "Mount Columbia | mountain, Alberta, Canada | Britannica",
                    "britannica.com",
                ),
                _src(
                    "https://en.wikipedia.org/wiki/Mount_Columbia_(Canada)",
                    "Mount Columbia (Canada) - Wikipedia",
                    _WIKI,
                ),
                _src(
                    "https://parks.canada.ca/pn-np/ab/jasper/activ/glacier",
                    "Columbia Icefield - Jasper National Park",
                    "canada.ca",
                ),
                _src(
                    "https://parks.canada.ca/pn-np/ab/jasper/info/columbia-icefield-report.pdf",
                    "Columbia Icefield monitoring report",
                    "canada.ca",
                    "doc",
                ),
                _src(
                    "https://www.cbc.ca/news/canada/edmonton/columbia-icefield-melt-1.7301234",
                    "Columbia Icefield is shrinking fast | CBC News",
                    "cbc.ca",
                    "news",
                ),
            ),
        ),
    ),
    Scenario(
        keywords=(("weather", "san francisco"),),
        answer=Answer(
            topic="the weather in San Francisco",
            queries=("weather in San Francisco", "San Francisco forecast tonight"),
            claims=(
                Claim(
                    "It is currently 17 °C (63 °F) and partly cloudy in San Francisco, with a "
                    "light west wind.",
                    (0, 1),
                ),
                Claim(
                    "Fog is expected to return this evening — typical for the season — with "
                    "lows near 12 °C (54 °F).",
                    (2, 3, 1),
                ),
            ),
            sources=(
                Source(
                    url="https://www.google.com/search?q=weather+in+San Francisco, CA,+US",
                    title="Weather information for San Francisco, CA, US",
                    domain="google.com",
                    vertex_only=True,
                ),
                _src(
                    "https://www.wunderground.com/weather/us/ca/san-francisco",
                    "San Francisco, CA Weather Conditions | Weather Underground",
                    "wunderground.com",
                ),
                _src(
                    "https://www.wunderground.com/forecast/us/ca/san-francisco",
                    "San Francisco, CA 10-Day Weather Forecast | Weather Underground",
                    "wunderground.com",
                ),
                _src(
                    "https://forecast.weather.gov/MapClick.php?lat=37.7772&lon=-122.4168",
                    "7-Day Forecast 37.77N 122.42W",
                    "weather.gov",
                ),
            ),
        ),
    ),
    Scenario(
        keywords=(("pride and prejudice",),),
        answer=Answer(
            topic="Pride and Prejudice",
            queries=("who wrote Pride and Prejudice", "Pride and Prejudice first edition 1813"),
            claims=(
                Claim(
                    "*Pride and Prejudice* was written by **Jane Austen** and first published "
                    "in London in January 1813.",
                    (0, 1),
                ),
                Claim(
                    "Austen published it anonymously — the title page credited only “the "
                    "Author of *Sense and Sensibility*”.",
                    (2, 0),
                ),
                Claim("The full text is in the public domain and free as an e-book.", (3,)),
                Claim(
                    "German translations such as *Stolz und Vorurteil* are still in print.", (4,)
                ),
            ),
            sources=(
                _src(
                    "https://en.wikipedia.org/wiki/Pride_and_Prejudice",
                    "Pride and Prejudice - Wikipedia",
                    _WIKI,
                ),
                _src(
                    "https://www.britannica.com/topic/Pride-and-Prejudice",
                    "Pride and Prejudice | Summary, Characters, & Facts | Britannica",
                    "britannica.com",
                ),
                _src(
                    "https://www.bl.uk/collection-items/first-edition-of-pride-and-prejudice",
                    "First edition of Pride and Prejudice - The British Library",
                    "bl.uk",
                ),
                _src(
                    "https://www.gutenberg.org/ebooks/1342",
                    "Pride and Prejudice by Jane Austen | Project Gutenberg",
                    "gutenberg.org",
                ),
                _src(
                    "https://www.bücher.de/artikel/buch/stolz-und-vorurteil/20994518/",
                    "Stolz und Vorurteil von Jane Austen - Taschenbuch - bücher.de",
                    "bücher.de",
                ),
                _src(
                    "https://www.youtube.com/watch?v=MzpXyEW3CaM&t=42s",
                    "Pride and Prejudice: Crash Course Literature - YouTube",
                    "youtube.com",
                    "video",
                ),
            ),
        ),
    ),
    Scenario(
        keywords=(("zugspitze",),),
        answer=Answer(
            topic="die Zugspitze",
            queries=("Zugspitze Höhe", "höchster Berg Deutschlands"),
            claims=(
                Claim(
                    "Die **Zugspitze** ist mit 2.962 Metern der höchste Berg Deutschlands.",
                    (0, 1),
                ),
                Claim(
                    "Sie liegt im Wettersteingebirge an der Grenze zwischen Bayern und Tirol — "
                    "der Gipfel ist mit Zahnradbahn und Seilbahn erreichbar.",
                    (2, 3),
                ),
                Claim(
                    "Auf dem Gipfel betreibt der Deutsche Wetterdienst eine der höchstgelegenen "
                    "Wetterstationen Europas.",
                    (4,),
                ),
            ),
            sources=(
                _src("https://de.wikipedia.org/wiki/Zugspitze", "Zugspitze – Wikipedia", _WIKI),
                _src(
                    "https://zugspitze.de/de/Zugspitze/Zahlen-und-Fakten",
                    "Zahlen & Fakten | Zugspitze",
                    "zugspitze.de",
                ),
                _src(
                    "https://www.br.de/nachrichten/bayern/zugspitze-wie-hoch-ist-der-gipfel,TZ8s1Qe",
                    "Zugspitze: Wie hoch ist Deutschlands höchster Berg? | BR24",
                    "br.de",
                    "news",
                ),
                _src(
                    "https://www.tirol.at/reisefuehrer/sehenswertes/berge/a-zugspitze",
                    "Zugspitze - Tirol",
                    "tirol.at",
                ),
                _src(
                    "https://www.dwd.de/DE/wetter/thema_des_tages/2024/7/15.html",
                    "Deutscher Wetterdienst - Thema des Tages",
                    "dwd.de",
                ),
                _src(
                    "https://www.bücher.de/artikel/buch/die-zugspitze/47110815/",
                    "Die Zugspitze - Geschichte eines Berges - bücher.de",
                    "bücher.de",
                ),
            ),
        ),
    ),
    Scenario(
        keywords=(("tokyo", "population"),),
        answer=Answer(
            topic="the population of Tokyo",
            queries=("Tokyo population 2025", "東京都 人口 推計"),
            claims=(
                Claim(
                    "Tokyo Metropolis had about 14.2 million residents in 2025 — roughly 11% of "
                    "Japan’s population.",
                    (0, 1),
                ),
                Claim(
                    "The Greater Tokyo Area, with Kanagawa, Saitama and Chiba, is home to more "
                    "than 37 million people.",
                    (2, 1),
                ),
                Claim("The city covers about 2,194 km², close to 6,500 people per km².", (4,)),
            ),
            sources=(
                _src(
                    "https://www.stat.go.jp/english/data/jinsui/2.html",
                    "Population Estimates - Statistics Bureau of Japan",
                    "stat.go.jp",
                ),
                _src("https://en.wikipedia.org/wiki/Tokyo", "Tokyo - Wikipedia", _WIKI),
                _src(
                    "https://www.japantimes.co.jp/news/2025/04/14/japan/society/population-decline/",
                    "Japan’s population falls for 14th straight year - The Japan Times",
                    "japantimes.co.jp",
                    "news",
                ),
                _src(
                    "https://www3.nhk.or.jp/news/html/20250414/k10014778211000.html",
                    "人口推計 14年連続減少 | NHKニュース",
                    "nhk.or.jp",
                    "news",
                ),
                _src(
                    "https://www.stat.go.jp/data/jinsui/pdf/202504.pdf",
                    "人口推計（令和7年4月報）",
                    "stat.go.jp",
                    "doc",
                ),
            ),
        ),
    ),
    Scenario(
        keywords=(("boiling point", "water"),),
        answer=Answer(
            topic="the boiling point of water",
            queries=("boiling point of water", "boiling point water altitude"),
            claims=(
                Claim("At sea level, pure water boils at **100 °C (212 °F)**.", (0, 1)),
                Claim(
                    "The boiling point falls as air pressure drops — at 3,000 m it is closer "
                    "to 90 °C.",
                    (2, 0),
                ),
                Claim("Salt raises it only slightly, by well under 1 °C in a cooking pot.", (3,)),
            ),
            sources=(
                _src(
                    "https://www.usgs.gov/special-topics/water-science-school/science/boiling-point-water",
                    "Boiling Point of Water | U.S. Geological Survey",
                    "usgs.gov",
                ),
                _src(
                    "https://www.britannica.com/science/boiling-point",
                    "Boiling point | Definition, Examples, Temperature, & Facts | Britannica",
                    "britannica.com",
                ),
                _src(
                    "https://www.bbc.co.uk/bitesize/guides/zq4x6yc/revision/2",
                    "States of matter - AQA - GCSE Chemistry  - BBC Bitesize",
                    "bbc.co.uk",
                ),
                _src(
                    "https://www.youtube.com/watch?v=6V2a1Ehx2Kk&t=42s",
                    "Does salt make water boil faster? - YouTube",
                    "youtube.com",
                    "video",
                ),
                _src(
                    "https://www.engineeringtoolbox.com/boiling-points-water-altitude-d_1344.html",
                    "Water - Boiling Points at Higher Altitudes",
                    "engineeringtoolbox.com",
                ),
            ),
        ),
    ),
)

# Claim sentences for the fallback, by the kind of their first source. "—" and "’" keep
# non-ASCII text in every answer, so byte and character offsets always differ.
_CLAIMS: dict[SourceKind, tuple[str, ...]] = {
    "web": (
        "{Topic} is covered consistently by reference sources — the core facts agree.",
        "The most widely cited overview sums up {topic} in three points: history, current "
        "status and open questions.",
        "Specialists note that the details of {topic} vary by country, so local sources matter.",
    ),
    "news": (
        "Recent reporting on {topic} adds context on how things developed over the past year.",
        "News coverage of {topic} has picked up — several outlets ran explainers this month.",
    ),
    "doc": (
        "Official statistics and reports give the underlying figures for {topic}.",
        "A published report on {topic} sets out the methodology behind the numbers.",
    ),
    "video": (
        "An explainer video walks through {topic} step by step for newcomers.",
        "A short documentary clip shows {topic} in practice — it’s a quick primer.",
    ),
}
_ALL_CLAIMS = tuple(template for templates in _CLAIMS.values() for template in templates)
_QUESTION_LEAD = re.compile(
    r"^(?:please\s+)?(?:(?:what|who|when|where|why|how|which)(?:'s|\s+(?:is|are|was|were|"
    r"did|does|do|many|much|can|should|will))?|tell me about|explain|describe|give me)\s+"
    r"(?:(?:the|a|an)\s+)?",
    re.IGNORECASE,
)
_MAX_TOPIC_WORDS = 8


def topic_of(question: str) -> str:
    """The subject of a question, e.g. "the EU AI Act" from "What is the EU AI Act?"."""
    line = next((ln.strip() for ln in question.splitlines() if ln.strip()), "")
    line = _QUESTION_LEAD.sub("", line).strip(" ?!.:;\"'")
    words = line.split()[:_MAX_TOPIC_WORDS]
    return " ".join(words) if words else "this topic"


@lru_cache(maxsize=4096)
def answer_for(question: str, country: str | None = None) -> Answer:
    """The catalogue answer when a scenario matches, otherwise a deterministic fallback."""
    folded = question.casefold()
    for scenario in SCENARIOS:
        if scenario.matches(folded):
            return scenario.answer
    return _fallback(question, country)


_WEATHER_OR_TIME = re.compile(
    r"\b(weather|time)\b(?:\s+is\s+it)?\s+in\s+(?P<place>[^?!.]+?)"
    r"(?:\s+(?:today|tonight|now|right now|tomorrow|currently|is it|this week))*$",
    re.IGNORECASE,
)


def _google_weather_or_time(topic: str, country: str | None) -> Source | None:
    """Google's own weather/time answer for such questions: a google.com/search chunk.

    Real ones keep the place's spaces and commas unencoded (``q=weather+in+San Francisco,
    CA,+US``), and Vertex cites them only; OpenAI never sees them.
    """
    match = _WEATHER_OR_TIME.search(topic)
    if match is None:
        return None
    kind, place = match[1].lower(), match["place"].strip()
    where = f"{place},+{country.upper()}" if country else place
    title = (
        f"Weather information for {place}"
        if kind == "weather"
        else f"Current time information in {place}."
    )
    return Source(
        url=f"https://www.google.com/search?q={kind}+in+{where}",
        title=title,
        domain="google.com",
        vertex_only=True,
    )


def _fresh_template(rng: random.Random, kind: SourceKind, used: set[str]) -> str:
    """A claim template for the source kind that this answer has not used yet."""
    for pool in (_CLAIMS[kind], _CLAIMS["web"], _ALL_CLAIMS):
        fresh = [t for t in pool if t not in used]
        if fresh:
            return rng.choice(fresh)
    return rng.choice(_CLAIMS[kind])


def _fallback(question: str, country: str | None) -> Answer:
    """A plausible grounded answer made only from the question's text (and country)."""
    rng = rng_for("fallback", question, country or "")
    topic = topic_of(question)
    sites = pick_sites(rng, rng.randint(3, 6), country)
    sources = [site.page(topic, rng) for site in sites]
    if rng.random() < 0.3:
        # Two pages of one site: a domain under two URLs, as real result lists often have.
        sources.insert(
            1, sites[0].page(f"{topic} {rng.choice(('history', 'facts', 'today'))}", rng)
        )
    google_answer = _google_weather_or_time(topic, country)
    if google_answer is not None:
        sources.insert(1, google_answer)
    count = min(len(sources) - 1, rng.randint(2, 4))
    claims: list[Claim] = []
    used: set[str] = set()
    for i in range(count):
        # The first claim cites two sources; later ones one each; the last repeats source 0,
        # so one URL is always cited twice. Sources past `count` stay search results only.
        wanted = (0, 1) if i == 0 else (i + 1,) if i < count - 1 else (i + 1, 0)
        cites = tuple(c for c in wanted if c < len(sources))
        template = _fresh_template(rng, sources[cites[0]].kind, used)
        used.add(template)
        claims.append(
            Claim(template.format(topic=topic, Topic=topic[:1].upper() + topic[1:]), cites)
        )
    queries = [topic, f"{topic} {rng.choice(('latest', '2026', 'explained', 'facts'))}"]
    if rng.random() < 0.4:
        queries.append(f"{topic} site:{sources[0].domain}")
    return Answer(
        topic=topic,
        queries=tuple(queries[: rng.randint(1, len(queries))]),
        claims=tuple(claims),
        sources=tuple(sources),
    )
