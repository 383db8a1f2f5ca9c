from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_type import MemoryType
from ..models.sensitivity import Sensitivity
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.competence_payload import CompetencePayload
    from ..models.entity_payload import EntityPayload
    from ..models.episodic_payload import EpisodicPayload
    from ..models.lifecycle_spec import LifecycleSpec
    from ..models.plan_graph_payload import PlanGraphPayload
    from ..models.provenance import Provenance
    from ..models.record_create_interpretation import RecordCreateInterpretation
    from ..models.relation_spec import RelationSpec
    from ..models.semantic_payload import SemanticPayload
    from ..models.working_payload import WorkingPayload


T = TypeVar("T", bound="RecordCreate")


@_attrs_define
class RecordCreate:
    """A typed record. `type` may be omitted: it is the payload's `kind`.

    Attributes:
        payload (CompetencePayload | EntityPayload | EpisodicPayload | PlanGraphPayload | SemanticPayload |
            WorkingPayload):
        type_ (MemoryType | None | Unset): The payload's `kind` (the default); anything else is 422.
        sensitivity (None | Sensitivity | Unset):
        confidence (float | None | Unset):
        salience (float | None | Unset):
        scope (None | str | Unset):
        tags (list[str] | Unset):
        lifecycle (LifecycleSpec | Unset):
        provenance (Provenance | Unset):
        relations (list[RelationSpec] | Unset):
        interpretation (RecordCreateInterpretation | Unset):
    """

    payload: CompetencePayload | EntityPayload | EpisodicPayload | PlanGraphPayload | SemanticPayload | WorkingPayload
    type_: MemoryType | None | Unset = UNSET
    sensitivity: None | Sensitivity | Unset = UNSET
    confidence: float | None | Unset = UNSET
    salience: float | None | Unset = UNSET
    scope: None | str | Unset = UNSET
    tags: list[str] | Unset = UNSET
    lifecycle: LifecycleSpec | Unset = UNSET
    provenance: Provenance | Unset = UNSET
    relations: list[RelationSpec] | Unset = UNSET
    interpretation: RecordCreateInterpretation | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.competence_payload import CompetencePayload  # noqa: PLC0415
        from ..models.entity_payload import EntityPayload  # noqa: PLC0415
        from ..models.episodic_payload import EpisodicPayload  # noqa: PLC0415
        from ..models.lifecycle_spec import LifecycleSpec  # noqa: PLC0415
        from ..models.plan_graph_payload import PlanGraphPayload  # noqa: PLC0415
        from ..models.provenance import Provenance  # noqa: PLC0415
        from ..models.record_create_interpretation import RecordCreateInterpretation  # noqa: PLC0415
        from ..models.relation_spec import RelationSpec  # noqa: PLC0415
        from ..models.semantic_payload import SemanticPayload  # noqa: PLC0415
        from ..models.working_payload import WorkingPayload  # noqa: PLC0415

        payload: dict[str, Any]
        if isinstance(self.payload, EpisodicPayload):
            payload = self.payload.to_dict()
        elif isinstance(self.payload, WorkingPayload):
            payload = self.payload.to_dict()
        elif isinstance(self.payload, EntityPayload):
            payload = self.payload.to_dict()
        elif isinstance(self.payload, SemanticPayload):
            payload = self.payload.to_dict()
        elif isinstance(self.payload, CompetencePayload):
            payload = self.payload.to_dict()
        else:
            payload = self.payload.to_dict()

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        elif isinstance(self.type_, MemoryType):
            type_ = self.type_.value
        else:
            type_ = self.type_

        sensitivity: None | str | Unset
        if isinstance(self.sensitivity, Unset):
            sensitivity = UNSET
        elif isinstance(self.sensitivity, Sensitivity):
            sensitivity = self.sensitivity.value
        else:
            sensitivity = self.sensitivity

        confidence: float | None | Unset
        if isinstance(self.confidence, Unset):
            confidence = UNSET
        else:
            confidence = self.confidence

        salience: float | None | Unset
        if isinstance(self.salience, Unset):
            salience = UNSET
        else:
            salience = self.salience

        scope: None | str | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        else:
            scope = self.scope

        tags: list[str] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags

        lifecycle: dict[str, Any] | Unset = UNSET
        if not isinstance(self.lifecycle, Unset):
            lifecycle = self.lifecycle.to_dict()

        provenance: dict[str, Any] | Unset = UNSET
        if not isinstance(self.provenance, Unset):
            provenance = self.provenance.to_dict()

        relations: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.relations, Unset):
            relations = []
            for relations_item_data in self.relations:
                relations_item = relations_item_data.to_dict()
                relations.append(relations_item)

        interpretation: dict[str, Any] | Unset = UNSET
        if not isinstance(self.interpretation, Unset):
            interpretation = self.interpretation.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "payload": payload,
            }
        )
        if type_ is not UNSET:
            field_dict["type"] = type_
        if sensitivity is not UNSET:
            field_dict["sensitivity"] = sensitivity
        if confidence is not UNSET:
            field_dict["confidence"] = confidence
        if salience is not UNSET:
            field_dict["salience"] = salience
        if scope is not UNSET:
            field_dict["scope"] = scope
        if tags is not UNSET:
            field_dict["tags"] = tags
        if lifecycle is not UNSET:
            field_dict["lifecycle"] = lifecycle
        if provenance is not UNSET:
            field_dict["provenance"] = provenance
        if relations is not UNSET:
            field_dict["relations"] = relations
        if interpretation is not UNSET:
            field_dict["interpretation"] = interpretation

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.competence_payload import CompetencePayload  # noqa: PLC0415
        from ..models.entity_payload import EntityPayload  # noqa: PLC0415
        from ..models.episodic_payload import EpisodicPayload  # noqa: PLC0415
        from ..models.lifecycle_spec import LifecycleSpec  # noqa: PLC0415
        from ..models.plan_graph_payload import PlanGraphPayload  # noqa: PLC0415
        from ..models.provenance import Provenance  # noqa: PLC0415
        from ..models.record_create_interpretation import RecordCreateInterpretation  # noqa: PLC0415
        from ..models.relation_spec import RelationSpec  # noqa: PLC0415
        from ..models.semantic_payload import SemanticPayload  # noqa: PLC0415
        from ..models.working_payload import WorkingPayload  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_payload(
            data: object,
        ) -> CompetencePayload | EntityPayload | EpisodicPayload | PlanGraphPayload | SemanticPayload | WorkingPayload:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                payload_type_0 = EpisodicPayload.from_dict(data)

                return payload_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                payload_type_1 = WorkingPayload.from_dict(data)

                return payload_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                payload_type_2 = EntityPayload.from_dict(data)

                return payload_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                payload_type_3 = SemanticPayload.from_dict(data)

                return payload_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                payload_type_4 = CompetencePayload.from_dict(data)

                return payload_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            payload_type_5 = PlanGraphPayload.from_dict(data)

            return payload_type_5

        payload = _parse_payload(d.pop("payload"))

        def _parse_type_(data: object) -> MemoryType | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                type_type_0 = MemoryType(data)

                return type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MemoryType | None | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        def _parse_sensitivity(data: object) -> None | Sensitivity | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sensitivity_type_0 = Sensitivity(data)

                return sensitivity_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Sensitivity | Unset, data)

        sensitivity = _parse_sensitivity(d.pop("sensitivity", UNSET))

        def _parse_confidence(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        confidence = _parse_confidence(d.pop("confidence", UNSET))

        def _parse_salience(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        salience = _parse_salience(d.pop("salience", UNSET))

        def _parse_scope(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))

        tags = cast(list[str], d.pop("tags", UNSET))

        _lifecycle = d.pop("lifecycle", UNSET)
        lifecycle: LifecycleSpec | Unset
        if isinstance(_lifecycle, Unset):
            lifecycle = UNSET
        else:
            lifecycle = LifecycleSpec.from_dict(_lifecycle)

        _provenance = d.pop("provenance", UNSET)
        provenance: Provenance | Unset
        if isinstance(_provenance, Unset):
            provenance = UNSET
        else:
            provenance = Provenance.from_dict(_provenance)

        _relations = d.pop("relations", UNSET)
        relations: list[RelationSpec] | Unset = UNSET
        if _relations is not UNSET:
            relations = []
            for relations_item_data in _relations:
                relations_item = RelationSpec.from_dict(relations_item_data)

                relations.append(relations_item)

        _interpretation = d.pop("interpretation", UNSET)
        interpretation: RecordCreateInterpretation | Unset
        if isinstance(_interpretation, Unset):
            interpretation = UNSET
        else:
            interpretation = RecordCreateInterpretation.from_dict(_interpretation)

        record_create = cls(
            payload=payload,
            type_=type_,
            sensitivity=sensitivity,
            confidence=confidence,
            salience=salience,
            scope=scope,
            tags=tags,
            lifecycle=lifecycle,
            provenance=provenance,
            relations=relations,
            interpretation=interpretation,
        )

        return record_create
