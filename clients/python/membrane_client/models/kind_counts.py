from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="KindCounts")


@_attrs_define
class KindCounts:
    """
    Attributes:
        records (int | Unset):  Default: 0.
        relations (int | Unset):  Default: 0.
        provenance (int | Unset):  Default: 0.
        entity_terms (int | Unset):  Default: 0.
        audit (int | Unset):  Default: 0.
        embeddings (int | Unset):  Default: 0.
    """

    records: int | Unset = 0
    relations: int | Unset = 0
    provenance: int | Unset = 0
    entity_terms: int | Unset = 0
    audit: int | Unset = 0
    embeddings: int | Unset = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        records = self.records

        relations = self.relations

        provenance = self.provenance

        entity_terms = self.entity_terms

        audit = self.audit

        embeddings = self.embeddings

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if records is not UNSET:
            field_dict["records"] = records
        if relations is not UNSET:
            field_dict["relations"] = relations
        if provenance is not UNSET:
            field_dict["provenance"] = provenance
        if entity_terms is not UNSET:
            field_dict["entity_terms"] = entity_terms
        if audit is not UNSET:
            field_dict["audit"] = audit
        if embeddings is not UNSET:
            field_dict["embeddings"] = embeddings

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        records = d.pop("records", UNSET)

        relations = d.pop("relations", UNSET)

        provenance = d.pop("provenance", UNSET)

        entity_terms = d.pop("entity_terms", UNSET)

        audit = d.pop("audit", UNSET)

        embeddings = d.pop("embeddings", UNSET)

        kind_counts = cls(
            records=records,
            relations=relations,
            provenance=provenance,
            entity_terms=entity_terms,
            audit=audit,
            embeddings=embeddings,
        )

        kind_counts.additional_properties = d
        return kind_counts

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
