"""Requests of the salience endpoints: reinforce, penalize, pin, unpin."""

from __future__ import annotations

from pydantic import Field

from app.schema_base import Rationale, StrictModel


class ReinforceRequest(StrictModel):
    rationale: Rationale | None = Field(default=None, examples=["Used in a successful answer"])


class PenalizeRequest(StrictModel):
    amount: float = Field(gt=0.0, le=1.0, examples=[0.2])
    rationale: Rationale | None = Field(default=None, examples=["Led the agent astray"])


class PinRequest(StrictModel):
    rationale: Rationale | None = None
