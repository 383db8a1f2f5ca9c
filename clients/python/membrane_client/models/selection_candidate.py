from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_type import MemoryType
from ..types import UNSET, Unset

T = TypeVar("T", bound="SelectionCandidate")


@_attrs_define
class SelectionCandidate:
    """
    Attributes:
        record_id (str):
        type_ (MemoryType):
        applicability (float):
        success_rate (float):
        recency (float):
        score (float):
        confidence (float):
    """

    record_id: str
    type_: MemoryType
    applicability: float
    success_rate: float
    recency: float
    score: float
    confidence: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        record_id = self.record_id

        type_ = self.type_.value

        applicability = self.applicability

        success_rate = self.success_rate

        recency = self.recency

        score = self.score

        confidence = self.confidence

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "record_id": record_id,
                "type": type_,
                "applicability": applicability,
                "success_rate": success_rate,
                "recency": recency,
                "score": score,
                "confidence": confidence,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        record_id = d.pop("record_id")

        type_ = MemoryType(d.pop("type"))

        applicability = d.pop("applicability")

        success_rate = d.pop("success_rate")

        recency = d.pop("recency")

        score = d.pop("score")

        confidence = d.pop("confidence")

        selection_candidate = cls(
            record_id=record_id,
            type_=type_,
            applicability=applicability,
            success_rate=success_rate,
            recency=recency,
            score=score,
            confidence=confidence,
        )

        selection_candidate.additional_properties = d
        return selection_candidate

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
