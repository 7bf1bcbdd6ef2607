"""The evidence rule (docs/how-vicaran-decides.md, "Evidence"), computed from recorded evidence,
never judged by the model."""

from __future__ import annotations

from typing import Literal

from .i18n import ENGLISH, message
from .schemas import Evidence, VerdictLabel

Direction = Literal["supports", "refutes"]

_OPPOSITE: dict[Direction, Direction] = {"supports": "refutes", "refutes": "supports"}

# Which direction of evidence each verdict rests on.
_NEEDS: dict[VerdictLabel, tuple[Direction, ...]] = {
    "verified": ("supports",),
    "partially_true": ("supports", "refutes"),
    "misleading": ("supports", "refutes"),
    "false": ("refutes",),
    "unverified": (),
}


def sufficient(
    evidence: list[Evidence], direction: Direction, language: str = ENGLISH
) -> tuple[bool, str]:
    """Whether `evidence` sufficiently establishes `direction`, and why (or why not), in
    `language`.

    Sufficient: one high-reliability independent item on point, or two independent neutral
    items from different publishers that agree with no equal-or-higher independent item
    contradicting them. Low never suffices. Items that are not independent (the claim's own
    pages, their publisher, copies, the own record of the party a fact rests on) never count;
    the own record of the party an attribution quotes does (pool.py marks which is which). A
    stance without a verified quote is context.
    """
    evidence = [e for e in evidence if e.independent]
    on_point = [e for e in evidence if e.stance == direction]
    high = [e for e in on_point if e.reliability == "high"]
    if high:
        best = next((e for e in high if e.primary_record), high[0])
        key = "rule_own_record" if best.primary_record else "rule_high"
        return True, message(key, language, publisher=best.publisher or best.url)
    neutral_publishers = {e.publisher or e.url for e in on_point if e.reliability == "neutral"}
    against = [
        e
        for e in evidence
        if e.stance == _OPPOSITE[direction] and e.reliability in ("neutral", "high")
    ]
    if len(neutral_publishers) >= 2 and not against:
        return True, message("rule_neutral_agree", language, count=len(neutral_publishers))
    if len(neutral_publishers) >= 2:
        return False, message("rule_contradicted", language)
    if on_point:
        return False, message("rule_one_source", language)
    return False, message("rule_no_evidence", language)


def is_sufficient(evidence: list[Evidence]) -> bool:
    return any(sufficient(evidence, d)[0] for d in ("supports", "refutes"))


def enforce_verdict(
    verdict: VerdictLabel, evidence: list[Evidence], language: str = ENGLISH
) -> tuple[VerdictLabel, str]:
    """The verdict the evidence allows: anything but `unverified` needs sufficient evidence
    (and why not, in `language`)."""
    if verdict == "unverified":
        return verdict, ""
    reasons = []
    for direction in _NEEDS[verdict]:
        ok, reason = sufficient(evidence, direction, language)
        if ok:
            return verdict, ""
        reasons.append(reason)
    return "unverified", "; ".join(dict.fromkeys(reasons))
