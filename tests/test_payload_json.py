"""The TypedDicts pure readers use for stored payloads (app/records/payload_json.py) name
only keys the payload models write (app/records/payloads)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from app.records import payload_json as stored
from app.records import payloads
from app.records.schemas import ProvenanceSource

PAIRS: list[tuple[type, type[BaseModel]]] = [
    (stored.TimelineJson, payloads.TimelineEntry),
    (stored.ToolCallJson, payloads.ToolCall),
    (stored.EpisodicJson, payloads.EpisodicPayload),
    (stored.WorkingJson, payloads.WorkingPayload),
    (stored.EntityJson, payloads.EntityPayload),
    (stored.RevisionJson, payloads.Revision),
    (stored.SemanticJson, payloads.SemanticPayload),
    (stored.TriggerJson, payloads.Trigger),
    (stored.RecipeStepJson, payloads.RecipeStep),
    (stored.PerformanceJson, payloads.Performance),
    (stored.CompetenceJson, payloads.CompetencePayload),
    (stored.PlanNodeJson, payloads.PlanNode),
    (stored.PlanMetricsJson, payloads.PlanMetrics),
    (stored.PlanGraphJson, payloads.PlanGraphPayload),
    (stored.ProvenanceSourceJson, ProvenanceSource),
]


@pytest.mark.parametrize(("typed", "model"), PAIRS, ids=lambda x: x.__name__)
def test_stored_json_names_only_fields_the_model_writes(
    typed: type, model: type[BaseModel]
) -> None:
    written = {field.alias or name for name, field in model.model_fields.items()}
    assert set(typed.__annotations__) <= written
