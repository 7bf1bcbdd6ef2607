"""The ClaimReview export (schema.org JSON-LD): one review per checked claim, naming its page."""

from __future__ import annotations

from typing import Any

from ..config import Settings, get_settings
from ..formatting import json_for_html
from ..i18n import verdict_label
from ..read_model import InvestigationView
from .words import claims_by_id, is_document, link_of

RATING_VALUES = {"verified": 5, "partially_true": 3, "misleading": 2, "false": 1}


def to_claimreview(
    investigation: InvestigationView,
    settings: Settings | None = None,
    *,
    reviewed_only: bool = False,
) -> str:
    """`claim_reviews` as a pretty-printed JSON array."""
    reviews = claim_reviews(investigation, settings, reviewed_only=reviewed_only)
    return json_for_html(reviews, indent=2) + "\n"


def claim_reviews(
    investigation: InvestigationView,
    settings: Settings | None = None,
    *,
    reviewed_only: bool = False,
) -> list[dict[str, Any]]:
    """One schema.org ClaimReview per fact-check, each naming the page that carries it.

    Google's fact-check guidance: one ClaimReview per page, on the page its `url` names, with
    the review (at least its summary and verdict) shown there; that page is the claim's
    (`GET /investigations/{id}/claims/{n}`, n its place in the report).

    Args:
        investigation: what `Repository.get_investigation` returns.
        settings: the publisher's name and URL and the dashboard's public URL.
        reviewed_only: only the claims an editor approved or changed.

    Each is rated by the verdict that stands: the editor's when one changed it.

    Returns:
        ClaimReview JSON-LD objects, in the order of the fact-checks.
    """
    settings = settings or get_settings()
    language = investigation.language or "en"
    claims = claims_by_id(investigation)
    # A document is private and has no web address: never an appearance.
    links = {
        source.id: link_of(source) for source in investigation.sources if not is_document(source)
    }
    iid = investigation.id
    fallback = (investigation.completed_at or investigation.updated_at or "")[:10]
    author: dict[str, Any] = {"@type": "Organization", "name": settings.vicaran_publisher_name}
    if settings.vicaran_publisher_url:
        author["url"] = settings.vicaran_publisher_url
    reviews = []
    for number, check in enumerate(investigation.fact_checks, 1):
        if reviewed_only and check.review.status == "unreviewed":
            continue
        claim = claims.get(check.claim_id)
        appearance = [
            {"@type": "CreativeWork", "url": links[source_id]}
            for source_id in (claim.source_ids if claim else [])
            if links.get(source_id)
        ]
        item: dict[str, Any] = {"@type": "Claim"}
        if appearance:
            item["appearance"] = appearance
        review: dict[str, Any] = {
            "@context": "https://schema.org",
            "@type": "ClaimReview",
            "url": settings.claim_url(iid, number),
            "claimReviewed": check.claim_text or (claim.claim_text if claim else ""),
            "author": dict(author),
            "reviewRating": review_rating(check.shown_verdict, language),
            "itemReviewed": item,
            "inLanguage": language,
        }
        if published := (check.as_of or fallback)[:10]:
            review["datePublished"] = published
        reviews.append(review)
    return reviews


def review_rating(verdict: str, language: str) -> dict[str, Any]:
    """The schema.org Rating for a verdict; `unverified` (no rating) has no `ratingValue`."""
    rating: dict[str, Any] = {"@type": "Rating"}
    if verdict in RATING_VALUES:
        rating["ratingValue"] = RATING_VALUES[verdict]
    try:
        name = verdict_label(verdict, language)[1].capitalize()
    except KeyError:
        name = str(verdict).replace("_", " ").capitalize()
    rating.update({"bestRating": 5, "worstRating": 1, "alternateName": name})
    return rating
