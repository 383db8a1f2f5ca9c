from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.sensitivity import Sensitivity
from ..types import UNSET, Unset

T = TypeVar("T", bound="TrustNarrowingIn")


@_attrs_define
class TrustNarrowingIn:
    """Narrow this request's trust further (never widens; headers narrow too).

    Attributes:
        max_sensitivity (None | Sensitivity | Unset):
        scopes (list[str] | None | Unset):
    """

    max_sensitivity: None | Sensitivity | Unset = UNSET
    scopes: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        max_sensitivity: None | str | Unset
        if isinstance(self.max_sensitivity, Unset):
            max_sensitivity = UNSET
        elif isinstance(self.max_sensitivity, Sensitivity):
            max_sensitivity = self.max_sensitivity.value
        else:
            max_sensitivity = self.max_sensitivity

        scopes: list[str] | None | Unset
        if isinstance(self.scopes, Unset):
            scopes = UNSET
        elif isinstance(self.scopes, list):
            scopes = self.scopes

        else:
            scopes = self.scopes

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_sensitivity is not UNSET:
            field_dict["max_sensitivity"] = max_sensitivity
        if scopes is not UNSET:
            field_dict["scopes"] = scopes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_max_sensitivity(data: object) -> None | Sensitivity | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                max_sensitivity_type_0 = Sensitivity(data)

                return max_sensitivity_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Sensitivity | Unset, data)

        max_sensitivity = _parse_max_sensitivity(d.pop("max_sensitivity", UNSET))

        def _parse_scopes(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                scopes_type_0 = cast(list[str], data)

                return scopes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        scopes = _parse_scopes(d.pop("scopes", UNSET))

        trust_narrowing_in = cls(
            max_sensitivity=max_sensitivity,
            scopes=scopes,
        )

        return trust_narrowing_in
