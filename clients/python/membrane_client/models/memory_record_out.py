from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_type import MemoryType
from ..models.sensitivity import Sensitivity
from ..models.status import Status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.audit_entry_out import AuditEntryOut
    from ..models.competence_payload import CompetencePayload
    from ..models.entity_payload import EntityPayload
    from ..models.episodic_payload import EpisodicPayload
    from ..models.lifecycle_out import LifecycleOut
    from ..models.memory_record_out_interpretation import MemoryRecordOutInterpretation
    from ..models.memory_record_out_provenance import MemoryRecordOutProvenance
    from ..models.plan_graph_payload import PlanGraphPayload
    from ..models.relation_out import RelationOut
    from ..models.semantic_payload import SemanticPayload
    from ..models.working_payload import WorkingPayload


T = TypeVar("T", bound="MemoryRecordOut")


@_attrs_define
class MemoryRecordOut:
    """
    Attributes:
        id (str):
        type_ (MemoryType):
        sensitivity (Sensitivity):
        confidence (float):
        salience (float): Current salience, decayed to the time of the request.
        scope (None | str):
        tags (list[str]):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        lifecycle (LifecycleOut):
        provenance (MemoryRecordOutProvenance):
        interpretation (MemoryRecordOutInterpretation):
        payload (CompetencePayload | EntityPayload | EpisodicPayload | PlanGraphPayload | SemanticPayload |
            WorkingPayload): The payload of the record's type, selected by its `kind`.
        status (Status):
        relations (list[RelationOut] | Unset):
        redacted (bool | Unset):  Default: False.
        audit_log (list[AuditEntryOut] | None | Unset): Present when a single record is read by id.
    """

    id: str
    type_: MemoryType
    sensitivity: Sensitivity
    confidence: float
    salience: float
    scope: None | str
    tags: list[str]
    created_at: datetime.datetime
    updated_at: datetime.datetime
    lifecycle: LifecycleOut
    provenance: MemoryRecordOutProvenance
    interpretation: MemoryRecordOutInterpretation
    payload: CompetencePayload | EntityPayload | EpisodicPayload | PlanGraphPayload | SemanticPayload | WorkingPayload
    status: Status
    relations: list[RelationOut] | Unset = UNSET
    redacted: bool | Unset = False
    audit_log: list[AuditEntryOut] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.audit_entry_out import AuditEntryOut  # noqa: PLC0415
        from ..models.competence_payload import CompetencePayload  # noqa: PLC0415
        from ..models.entity_payload import EntityPayload  # noqa: PLC0415
        from ..models.episodic_payload import EpisodicPayload  # noqa: PLC0415
        from ..models.lifecycle_out import LifecycleOut  # noqa: PLC0415
        from ..models.memory_record_out_interpretation import MemoryRecordOutInterpretation  # noqa: PLC0415
        from ..models.memory_record_out_provenance import MemoryRecordOutProvenance  # noqa: PLC0415
        from ..models.plan_graph_payload import PlanGraphPayload  # noqa: PLC0415
        from ..models.relation_out import RelationOut  # noqa: PLC0415
        from ..models.semantic_payload import SemanticPayload  # noqa: PLC0415
        from ..models.working_payload import WorkingPayload  # noqa: PLC0415

        id = self.id

        type_ = self.type_.value

        sensitivity = self.sensitivity.value

        confidence = self.confidence

        salience = self.salience

        scope: None | str
        scope = self.scope

        tags = self.tags

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        lifecycle = self.lifecycle.to_dict()

        provenance = self.provenance.to_dict()

        interpretation = self.interpretation.to_dict()

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

        status = self.status.value

        relations: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.relations, Unset):
            relations = []
            for relations_item_data in self.relations:
                relations_item = relations_item_data.to_dict()
                relations.append(relations_item)

        redacted = self.redacted

        audit_log: list[dict[str, Any]] | None | Unset
        if isinstance(self.audit_log, Unset):
            audit_log = UNSET
        elif isinstance(self.audit_log, list):
            audit_log = []
            for audit_log_type_0_item_data in self.audit_log:
                audit_log_type_0_item = audit_log_type_0_item_data.to_dict()
                audit_log.append(audit_log_type_0_item)

        else:
            audit_log = self.audit_log

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "sensitivity": sensitivity,
                "confidence": confidence,
                "salience": salience,
                "scope": scope,
                "tags": tags,
                "created_at": created_at,
                "updated_at": updated_at,
                "lifecycle": lifecycle,
                "provenance": provenance,
                "interpretation": interpretation,
                "payload": payload,
                "status": status,
            }
        )
        if relations is not UNSET:
            field_dict["relations"] = relations
        if redacted is not UNSET:
            field_dict["redacted"] = redacted
        if audit_log is not UNSET:
            field_dict["audit_log"] = audit_log

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audit_entry_out import AuditEntryOut  # noqa: PLC0415
        from ..models.competence_payload import CompetencePayload  # noqa: PLC0415
        from ..models.entity_payload import EntityPayload  # noqa: PLC0415
        from ..models.episodic_payload import EpisodicPayload  # noqa: PLC0415
        from ..models.lifecycle_out import LifecycleOut  # noqa: PLC0415
        from ..models.memory_record_out_interpretation import MemoryRecordOutInterpretation  # noqa: PLC0415
        from ..models.memory_record_out_provenance import MemoryRecordOutProvenance  # noqa: PLC0415
        from ..models.plan_graph_payload import PlanGraphPayload  # noqa: PLC0415
        from ..models.relation_out import RelationOut  # noqa: PLC0415
        from ..models.semantic_payload import SemanticPayload  # noqa: PLC0415
        from ..models.working_payload import WorkingPayload  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = MemoryType(d.pop("type"))

        sensitivity = Sensitivity(d.pop("sensitivity"))

        confidence = d.pop("confidence")

        salience = d.pop("salience")

        def _parse_scope(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        scope = _parse_scope(d.pop("scope"))

        tags = cast(list[str], d.pop("tags"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        lifecycle = LifecycleOut.from_dict(d.pop("lifecycle"))

        provenance = MemoryRecordOutProvenance.from_dict(d.pop("provenance"))

        interpretation = MemoryRecordOutInterpretation.from_dict(d.pop("interpretation"))

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

        status = Status(d.pop("status"))

        _relations = d.pop("relations", UNSET)
        relations: list[RelationOut] | Unset = UNSET
        if _relations is not UNSET:
            relations = []
            for relations_item_data in _relations:
                relations_item = RelationOut.from_dict(relations_item_data)

                relations.append(relations_item)

        redacted = d.pop("redacted", UNSET)

        def _parse_audit_log(data: object) -> list[AuditEntryOut] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                audit_log_type_0 = []
                _audit_log_type_0 = data
                for audit_log_type_0_item_data in _audit_log_type_0:
                    audit_log_type_0_item = AuditEntryOut.from_dict(audit_log_type_0_item_data)

                    audit_log_type_0.append(audit_log_type_0_item)

                return audit_log_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[AuditEntryOut] | None | Unset, data)

        audit_log = _parse_audit_log(d.pop("audit_log", UNSET))

        memory_record_out = cls(
            id=id,
            type_=type_,
            sensitivity=sensitivity,
            confidence=confidence,
            salience=salience,
            scope=scope,
            tags=tags,
            created_at=created_at,
            updated_at=updated_at,
            lifecycle=lifecycle,
            provenance=provenance,
            interpretation=interpretation,
            payload=payload,
            status=status,
            relations=relations,
            redacted=redacted,
            audit_log=audit_log,
        )

        memory_record_out.additional_properties = d
        return memory_record_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
