from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RetractRequest")


@_attrs_define
class RetractRequest:
    """
    Attributes:
        rationale (str):
    """

    rationale: str

    def to_dict(self) -> dict[str, Any]:
        rationale = self.rationale

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "rationale": rationale,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        rationale = d.pop("rationale")

        retract_request = cls(
            rationale=rationale,
        )

        return retract_request
