"""The pool of real-looking sites that synthesised answers cite, across many TLDs.

Each site knows its registrable domain, the host its URLs use, the country it serves (None for
international sites), what kind of source it is, and how its URLs and page titles look, so
that ALS reports over emulator output show a believable spread of TLDs, countries and kinds.
"""

from __future__ import annotations

import base64
import itertools
import random
import re
import string
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

__all__ = ["SITES", "Site", "Source", "SourceKind", "pick_sites", "slugify"]

SourceKind = Literal["web", "news", "video", "doc"]


@dataclass(frozen=True)
class Source:
    """One page an answer rests on."""

    url: str
    title: str
    domain: str
    kind: SourceKind = "web"
    vertex_only: bool = False  # Google's own weather/time answers (google.com/search chunks)


@dataclass(frozen=True)
class Site:
    """A site in the pool and the shape of its URLs and titles.

    ``path`` and ``title`` are templates over: ``{topic}`` (title case), ``{slug}``,
    ``{Slug}`` (Wiki_Style), ``{id}`` (digits), ``{hex}``, ``{yt}`` (a video id),
    ``{y}``/``{m}``/``{d}`` and ``{date}`` (YYYY-MM-DD).
    """

    domain: str
    host: str
    kind: SourceKind
    country: str | None
    path: str
    title: str

    def page(self, topic: str, rng: random.Random) -> Source:
        """A page of this site about ``topic``, its details drawn from ``rng``."""
        slug = slugify(topic) or f"article-{rng.randint(1000, 9999)}"
        fields = {"topic": topic[:1].upper() + topic[1:], "slug": slug}
        # Only the fields this site's templates use are drawn: pages are made by the thousand.
        for name in _fields_of(self.path) | _fields_of(self.title):
            if name not in fields:
                fields[name] = _FIELD_MAKERS[name](slug, rng)
        return Source(
            url=f"https://{self.host}{self.path.format(**fields)}",
            title=self.title.format(**fields),
            domain=self.domain,
            kind=self.kind,
        )


@cache
def _fields_of(template: str) -> frozenset[str]:
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


def _date_part(index: int) -> Callable[[str, random.Random], str]:
    def make(_slug: str, rng: random.Random) -> str:
        year, month, day = 2025 + rng.getrandbits(1), rng.randint(1, 12), rng.randint(1, 28)
        return (str(year), f"{month:02d}", f"{day:02d}", f"{year}-{month:02d}-{day:02d}")[index]

    return make


_FIELD_MAKERS: dict[str, Callable[[str, random.Random], str]] = {
    "Slug": lambda slug, _rng: "_".join(w[:1].upper() + w[1:] for w in slug.split("-")),
    "id": lambda _slug, rng: str(rng.randint(10**6, 10**9)),
    "hex": lambda _slug, rng: f"{rng.getrandbits(96):024x}",
    "yt": lambda _slug, rng: base64.urlsafe_b64encode(rng.randbytes(9)).decode()[:11],
    "y": _date_part(0),
    "m": _date_part(1),
    "d": _date_part(2),
    "date": _date_part(3),
}


SITES: tuple[Site, ...] = (
    # International and US
    Site("wikipedia.org", "en.wikipedia.org", "web", None, "/wiki/{Slug}", "{topic} - Wikipedia"),
    Site(
        "britannica.com", "www.britannica.com", "web", "US", "/topic/{slug}", "{topic} | Britannica"
    ),
    Site(
        "reuters.com", "www.reuters.com", "news", None, "/world/{slug}-{date}/", "{topic} | Reuters"
    ),
    Site("apnews.com", "apnews.com", "news", "US", "/article/{hex}", "{topic} | AP News"),
    Site(
        "nytimes.com",
        "www.nytimes.com",
        "news",
        "US",
        "/{y}/{m}/{d}/world/{slug}.html",
        "{topic} - The New York Times",
    ),
    Site("youtube.com", "www.youtube.com", "video", None, "/watch?v={yt}", "{topic} - YouTube"),
    Site("vimeo.com", "vimeo.com", "video", None, "/{id}", "{topic} on Vimeo"),
    Site(
        "stackoverflow.com",
        "stackoverflow.com",
        "web",
        None,
        "/questions/{id}/{slug}",
        "{topic} - Stack Overflow",
    ),
    Site(
        "ycombinator.com",
        "news.ycombinator.com",
        "web",
        None,
        "/item?id={id}",
        "{topic} | Hacker News",
    ),
    Site("arxiv.org", "arxiv.org", "doc", None, "/pdf/2{m}{d}.{id}", "{topic}"),
    Site(
        "who.int",
        "iris.who.int",
        "doc",
        None,
        "/bitstream/handle/10665/{id}/9789240{id}-eng.pdf?sequence=1",
        "{topic}: global report",
    ),
    Site("un.org", "www.un.org", "doc", None, "/sites/un2.un.org/files/{slug}.pdf", "{topic}"),
    Site(
        "europa.eu",
        "eur-lex.europa.eu",
        "doc",
        None,
        "/legal-content/EN/TXT/PDF/?uri=CELEX:3{id}",
        "EUR-Lex - {topic}",
    ),
    Site("nasa.gov", "www.nasa.gov", "web", "US", "/{slug}/", "{topic} - NASA"),
    Site("mit.edu", "news.mit.edu", "news", "US", "/{y}/{slug}-{m}{d}", "{topic} | MIT News"),
    Site("dev.to", "dev.to", "web", None, "/devrel/{slug}-{id}", "{topic} - DEV Community"),
    Site("endoflife.date", "endoflife.date", "web", None, "/{slug}", "{topic} | endoflife.date"),
    # United Kingdom
    Site(
        "bbc.co.uk",
        "www.bbc.co.uk",
        "news",
        "GB",
        "/news/articles/c{hex}o",
        "{topic} \u2013 BBC News",
    ),
    Site(
        "theguardian.com",
        "www.theguardian.com",
        "news",
        "GB",
        "/world/{y}/{m}/{d}/{slug}",
        "{topic} | World news | The Guardian",
    ),
    Site(
        "ons.gov.uk",
        "www.ons.gov.uk",
        "web",
        "GB",
        "/peoplepopulationandcommunity/{slug}/bulletins/{y}",
        "{topic} - Office for National Statistics",
    ),
    Site(
        "parliament.uk",
        "researchbriefings.files.parliament.uk",
        "doc",
        "GB",
        "/documents/CBP-{id}/CBP-{id}.pdf",
        "{topic}",
    ),
    # Germany, Austria, Switzerland
    Site(
        "wikipedia.org", "de.wikipedia.org", "web", "DE", "/wiki/{Slug}", "{topic} \u2013 Wikipedia"
    ),
    Site(
        "spiegel.de",
        "www.spiegel.de",
        "news",
        "DE",
        "/wissenschaft/{slug}-a-{hex}",
        "{topic} - DER SPIEGEL",
    ),
    Site("zeit.de", "www.zeit.de", "news", "DE", "/wissen/{y}-{m}/{slug}", "{topic} | ZEIT ONLINE"),
    Site(
        "tagesschau.de",
        "www.tagesschau.de",
        "news",
        "DE",
        "/inland/{slug}-100.html",
        "{topic} | tagesschau.de",
    ),
    Site(
        "b\u00fccher.de",
        "www.b\u00fccher.de",
        "web",
        "DE",
        "/artikel/buch/{slug}/{id}/",
        "{topic} - Fachbuch - b\u00fccher.de",
    ),
    Site(
        "destatis.de",
        "www.destatis.de",
        "doc",
        "DE",
        "/DE/Themen/Publikationen/Downloads/{slug}-{id}.pdf?__blob=publicationFile",
        "{topic} - Statistisches Bundesamt",
    ),
    Site("orf.at", "orf.at", "news", "AT", "/stories/{id}/", "{topic}"),
    Site("nzz.ch", "www.nzz.ch", "news", "CH", "/international/{slug}-ld.{id}", "{topic} | NZZ"),
    # France
    Site(
        "wikipedia.org",
        "fr.wikipedia.org",
        "web",
        "FR",
        "/wiki/{Slug}",
        "{topic} \u2014 Wikip\u00e9dia",
    ),
    Site(
        "lemonde.fr",
        "www.lemonde.fr",
        "news",
        "FR",
        "/international/article/{y}/{m}/{d}/{slug}_{id}_3210.html",
        "{topic}",
    ),
    Site(
        "service-public.fr",
        "www.service-public.fr",
        "web",
        "FR",
        "/particuliers/vosdroits/F{id}",
        "{topic} | Service-Public.fr",
    ),
    Site(
        "insee.fr",
        "www.insee.fr",
        "doc",
        "FR",
        "/fr/statistiques/fichier/{id}/{slug}.pdf",
        "{topic}",
    ),
    # Japan
    Site("wikipedia.org", "ja.wikipedia.org", "web", "JP", "/wiki/{Slug}", "{topic} - Wikipedia"),
    Site(
        "nhk.or.jp",
        "www3.nhk.or.jp",
        "news",
        "JP",
        "/news/html/{y}{m}{d}/k{id}.html",
        "{topic} | NHK\u30cb\u30e5\u30fc\u30b9",
    ),
    Site(
        "yahoo.co.jp",
        "news.yahoo.co.jp",
        "news",
        "JP",
        "/articles/{hex}",
        "{topic}\uff08Yahoo!\u30cb\u30e5\u30fc\u30b9\uff09",
    ),
    Site("stat.go.jp", "www.stat.go.jp", "doc", "JP", "/data/{slug}/pdf/{id}.pdf", "{topic}"),
    Site(
        "japantimes.co.jp",
        "www.japantimes.co.jp",
        "news",
        "JP",
        "/news/{y}/{m}/{d}/japan/{slug}/",
        "{topic} - The Japan Times",
    ),
    # Elsewhere
    Site("cbc.ca", "www.cbc.ca", "news", "CA", "/news/canada/{slug}-1.{id}", "{topic} | CBC News"),
    Site(
        "statcan.gc.ca",
        "www150.statcan.gc.ca",
        "web",
        "CA",
        "/n1/daily-quotidien/{m}{d}/dq{m}{d}a-eng.htm",
        "The Daily \u2014 {topic}",
    ),
    Site(
        "abc.net.au",
        "www.abc.net.au",
        "news",
        "AU",
        "/news/{date}/{slug}/{id}",
        "{topic} - ABC News",
    ),
    Site(
        "smh.com.au",
        "www.smh.com.au",
        "news",
        "AU",
        "/national/{slug}-{y}{m}{d}-p5{id}.html",
        "{topic}",
    ),
    Site(
        "elpais.com",
        "elpais.com",
        "news",
        "ES",
        "/internacional/{date}/{slug}.html",
        "{topic} | Internacional | EL PA\u00cdS",
    ),
    Site(
        "rtve.es", "www.rtve.es", "news", "ES", "/noticias/{y}{m}{d}/{slug}/{id}.shtml", "{topic}"
    ),
    Site(
        "corriere.it",
        "www.corriere.it",
        "news",
        "IT",
        "/esteri/{slug}-{hex}.shtml",
        "{topic} - Corriere.it",
    ),
    Site("nos.nl", "nos.nl", "news", "NL", "/artikel/{id}-{slug}", "{topic}"),
    Site(
        "thehindu.com",
        "www.thehindu.com",
        "news",
        "IN",
        "/news/national/{slug}/article{id}.ece",
        "{topic} - The Hindu",
    ),
    Site("gov.in", "pib.gov.in", "web", "IN", "/PressReleasePage.aspx?PRID={id}", "{topic}"),
    Site(
        "globo.com",
        "g1.globo.com",
        "news",
        "BR",
        "/mundo/noticia/{y}/{m}/{d}/{slug}.ghtml",
        "{topic} | Mundo | G1",
    ),
)

# International sites weigh more than other countries' sites, as in real result lists.
_CUMULATIVE_WEIGHTS = list(itertools.accumulate(3 if s.country is None else 1 for s in SITES))
_BY_COUNTRY: dict[str | None, tuple[Site, ...]] = {}
for _site in SITES:
    _BY_COUNTRY[_site.country] = (*_BY_COUNTRY.get(_site.country, ()), _site)


def pick_sites(rng: random.Random, count: int, country: str | None) -> list[Site]:
    """``count`` distinct sites; about half from ``country`` when the pool has sites there."""
    local = list(_BY_COUNTRY.get(country.upper(), ())) if country else []
    chosen = rng.sample(local, min(len(local), max(1, count // 2 + count % 2))) if local else []
    while len(chosen) < count:
        site = rng.choices(SITES, cum_weights=_CUMULATIVE_WEIGHTS)[0]
        if site not in chosen:
            chosen.append(site)
    rng.shuffle(chosen)
    return chosen


@lru_cache(maxsize=4096)
def slugify(text: str) -> str:
    """ASCII kebab-case of ``text`` (accents dropped; other scripts vanish)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:60].strip("-")
