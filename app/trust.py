"""What a request may see and touch (DESIGN §5 'Trust is server-side').

The one place where the visibility rule is written:
- a record is *readable* when its sensitivity is at or below the ceiling and its scope
  is one of the caller's (unscoped records are visible to every principal);
- a record exactly one level above the ceiling is *redacted*: lists and rankings show
  its metadata only; by id it answers 403;
- anything higher is invisible.
Repositories receive a `Visibility` (plain data) and build the SQL for it themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.enums import Sensitivity
from app.errors import Forbidden

HIGHEST_RANK = len(Sensitivity) - 1


@dataclass(frozen=True)
class Visibility:
    """The rows a query may return: sensitivity rank ≤ max_rank, scope in scopes (or
    unscoped). None scopes → every scope."""

    max_rank: int
    scopes: frozenset[str] | None


@dataclass(frozen=True)
class Narrowing:
    """What a request asked to narrow its trust to (headers or body)."""

    max_sensitivity: Sensitivity | None = None
    scopes: list[str] | None = None


@dataclass(frozen=True)
class TrustContext:
    """What one request may see: the principal's trust, possibly narrowed."""

    ceiling: Sensitivity
    scopes: frozenset[str] | None = None  # None → every scope
    actor_id: str = "anonymous"
    # The ceiling's rank, asked of every candidate of a retrieve (`redacts`): kept, since
    # `Sensitivity.rank` looks the level up (~0.4 µs a call, hundreds a retrieve).
    ceiling_rank: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ceiling_rank", self.ceiling.rank)

    def narrowed(
        self, max_sensitivity: Sensitivity | None, scopes: list[str] | None
    ) -> TrustContext:
        """This trust, narrowed; asking for more than it has never widens it."""
        ceiling = self.ceiling
        if max_sensitivity is not None and max_sensitivity.rank < ceiling.rank:
            ceiling = max_sensitivity
        allowed = self.scopes
        if scopes is not None:
            asked = frozenset(scopes)
            allowed = asked if allowed is None else asked & allowed
        return TrustContext(ceiling=ceiling, scopes=allowed, actor_id=self.actor_id)

    def scope_allowed(self, scope: str | None) -> bool:
        """Unscoped records are visible to every principal."""
        return scope is None or self.scopes is None or scope in self.scopes

    def reads_everything(self) -> bool:
        """No ceiling below the highest level and no scope limit."""
        return self.ceiling_rank == HIGHEST_RANK and self.scopes is None

    def can_read(self, sensitivity_rank: int, scope: str | None) -> bool:
        return sensitivity_rank <= self.ceiling_rank and self.scope_allowed(scope)

    def can_write(self, sensitivity_rank: int, scope: str | None) -> bool:
        """The write rule (`check_write_target` says why it refuses): within the ceiling
        and the scopes; unscoped only for a principal that is not restricted to scopes."""
        if scope is None:
            return sensitivity_rank <= self.ceiling_rank and self.scopes is None
        return self.can_read(sensitivity_rank, scope)

    def may_list(self, sensitivity_rank: int, scope: str | None) -> bool:
        """Whether the record exists for this caller at all (readable or redacted)."""
        return sensitivity_rank <= self.listing().max_rank and self.scope_allowed(scope)

    def redacts(self, sensitivity_rank: int) -> bool:
        """True for a row that passed `listing()` but may only be shown as metadata."""
        return sensitivity_rank > self.ceiling_rank

    def listing(self) -> Visibility:
        """Rows for lists and rankings: readable ones plus the redacted level above."""
        return Visibility(min(self.ceiling_rank + 1, HIGHEST_RANK), self.scopes)

    def reading(self) -> Visibility:
        """Rows the caller may read in full (aggregates count only these)."""
        return Visibility(self.ceiling_rank, self.scopes)


def check_write_target(trust: TrustContext, scope: str | None, sensitivity: Sensitivity) -> None:
    """Writes outside the principal's scopes or above its ceiling are refused, saying why
    (the rule itself is `TrustContext.can_write`)."""
    if trust.can_write(sensitivity.rank, scope):
        return
    if sensitivity.rank > trust.ceiling_rank:
        raise Forbidden(
            f"Sensitivity {sensitivity.value!r} is above your ceiling {trust.ceiling.value!r}."
        )
    if scope is None:
        raise Forbidden("A principal restricted to scopes must write into one of them.")
    raise Forbidden(f"Scope {scope!r} is outside your scopes.")
