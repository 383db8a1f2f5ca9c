from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ContestRequest")


@_attrs_define
class ContestRequest:
    """
    Attributes:
        contesting_ref (str): A record id (UUID; must be a record you can read) or any external reference such as a URL
            or ticket id.
        rationale (str):
    """

    contesting_ref: str
    rationale: str

    def to_dict(self) -> dict[str, Any]:
        contesting_ref = self.contesting_ref

        rationale = self.rationale

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "contesting_ref": contesting_ref,
                "rationale": rationale,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        contesting_ref = d.pop("contesting_ref")

        rationale = d.pop("rationale")

        contest_request = cls(
            contesting_ref=contesting_ref,
            rationale=rationale,
        )

        return contest_request
