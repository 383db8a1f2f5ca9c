"""Policy engine: the defaults of DESIGN §5 applied to a new record."""

from __future__ import annotations

from dataclasses import dataclass

from app.config import Settings
from app.enums import DeletionPolicy, MemoryType, Sensitivity
from app.records.schemas import LifecycleSpec

# Predicates Membrane writes itself that name many objects at once: the structural
# consolidation stage's (event kind, observed_in, summary) facts.
ALWAYS_MULTI_VALUED = frozenset({"observed_in"})


def fact_term(predicate: str) -> str:
    """A predicate as the multi-valued list is matched: case and outer spaces ignored."""
    return predicate.strip().casefold()


@dataclass(frozen=True)
class ResolvedPolicy:
    sensitivity: Sensitivity
    confidence: float
    salience: float
    curve: str
    half_life_s: float
    min_salience: float
    max_age_s: float | None
    reinforcement_gain: float
    pinned: bool
    deletion_policy: DeletionPolicy


class PolicyEngine:
    def __init__(self, settings: Settings) -> None:
        self._policy = settings.policy
        self._multi_valued = frozenset(
            fact_term(p) for p in settings.policy.multi_valued_predicates
        )

    @property
    def contradiction_policy(self) -> str:
        """What a newer contradicting fact does to the older: supersede or contest it."""
        return self._policy.contradiction_policy

    def single_valued(self, predicate: str) -> bool:
        """Whether a fact of `predicate` holds one object at a time (contradictions apply).
        Consolidation's own `observed_in` facts are many by construction."""
        term = fact_term(predicate)
        return term not in self._multi_valued and term not in ALWAYS_MULTI_VALUED

    @property
    def seed_audit_names(self) -> bool:
        """Audit views name actions as the original does (app/audit/names.py)."""
        return self._policy.seed_audit_action_names

    def confidence_for(self, source_kind: str | None) -> float:
        if source_kind is None:
            return 1.0
        return self._policy.confidence_by_source.get(source_kind, 0.8)

    def resolve(
        self,
        memory_type: MemoryType,
        lifecycle: LifecycleSpec,
        *,
        sensitivity: Sensitivity | None,
        confidence: float | None,
        salience: float | None,
        source_kind: str | None = None,
    ) -> ResolvedPolicy:
        decay = lifecycle.decay
        return ResolvedPolicy(
            sensitivity=sensitivity or self._policy.default_sensitivity,
            confidence=confidence if confidence is not None else self.confidence_for(source_kind),
            salience=salience if salience is not None else self._policy.initial_salience,
            curve=decay.curve.value,
            half_life_s=decay.half_life_seconds or self._policy.half_life_seconds[memory_type],
            min_salience=decay.min_salience,
            max_age_s=decay.max_age_seconds,
            reinforcement_gain=(
                decay.reinforcement_gain
                if decay.reinforcement_gain is not None
                else self._policy.reinforcement_gain
            ),
            pinned=lifecycle.pinned,
            deletion_policy=lifecycle.deletion_policy
            or DeletionPolicy(self._policy.default_deletion_policy),
        )
