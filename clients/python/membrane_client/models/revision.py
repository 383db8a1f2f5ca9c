from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.revision_status_type_0 import RevisionStatusType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="Revision")


@_attrs_define
class Revision:
    """
    Attributes:
        version (int | Unset):  Default: 1.
        supersedes (None | str | Unset):
        superseded_by (None | str | Unset):
        status (None | RevisionStatusType0 | Unset):
    """

    version: int | Unset = 1
    supersedes: None | str | Unset = UNSET
    superseded_by: None | str | Unset = UNSET
    status: None | RevisionStatusType0 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        version = self.version

        supersedes: None | str | Unset
        if isinstance(self.supersedes, Unset):
            supersedes = UNSET
        else:
            supersedes = self.supersedes

        superseded_by: None | str | Unset
        if isinstance(self.superseded_by, Unset):
            superseded_by = UNSET
        else:
            superseded_by = self.superseded_by

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, RevisionStatusType0):
            status = self.status.value
        else:
            status = self.status

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if version is not UNSET:
            field_dict["version"] = version
        if supersedes is not UNSET:
            field_dict["supersedes"] = supersedes
        if superseded_by is not UNSET:
            field_dict["superseded_by"] = superseded_by
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        version = d.pop("version", UNSET)

        def _parse_supersedes(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        supersedes = _parse_supersedes(d.pop("supersedes", UNSET))

        def _parse_superseded_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        superseded_by = _parse_superseded_by(d.pop("superseded_by", UNSET))

        def _parse_status(data: object) -> None | RevisionStatusType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = RevisionStatusType0(data)

                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RevisionStatusType0 | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        revision = cls(
            version=version,
            supersedes=supersedes,
            superseded_by=superseded_by,
            status=status,
        )

        return revision
