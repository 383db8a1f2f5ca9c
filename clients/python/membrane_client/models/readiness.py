from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.embedding_status import EmbeddingStatus
    from ..models.replica_status import ReplicaStatus


T = TypeVar("T", bound="Readiness")


@_attrs_define
class Readiness:
    """
    Attributes:
        status (str):
        database (str):
        dialect (str):
        tier (int):
        tier_name (str):
        open_mode (bool):
        embedding (EmbeddingStatus):
        replicas (list[ReplicaStatus] | Unset):
    """

    status: str
    database: str
    dialect: str
    tier: int
    tier_name: str
    open_mode: bool
    embedding: EmbeddingStatus
    replicas: list[ReplicaStatus] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.embedding_status import EmbeddingStatus  # noqa: PLC0415
        from ..models.replica_status import ReplicaStatus  # noqa: PLC0415

        status = self.status

        database = self.database

        dialect = self.dialect

        tier = self.tier

        tier_name = self.tier_name

        open_mode = self.open_mode

        embedding = self.embedding.to_dict()

        replicas: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.replicas, Unset):
            replicas = []
            for replicas_item_data in self.replicas:
                replicas_item = replicas_item_data.to_dict()
                replicas.append(replicas_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "database": database,
                "dialect": dialect,
                "tier": tier,
                "tier_name": tier_name,
                "open_mode": open_mode,
                "embedding": embedding,
            }
        )
        if replicas is not UNSET:
            field_dict["replicas"] = replicas

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.embedding_status import EmbeddingStatus  # noqa: PLC0415
        from ..models.replica_status import ReplicaStatus  # noqa: PLC0415

        d = dict(src_dict)
        status = d.pop("status")

        database = d.pop("database")

        dialect = d.pop("dialect")

        tier = d.pop("tier")

        tier_name = d.pop("tier_name")

        open_mode = d.pop("open_mode")

        embedding = EmbeddingStatus.from_dict(d.pop("embedding"))

        _replicas = d.pop("replicas", UNSET)
        replicas: list[ReplicaStatus] | Unset = UNSET
        if _replicas is not UNSET:
            replicas = []
            for replicas_item_data in _replicas:
                replicas_item = ReplicaStatus.from_dict(replicas_item_data)

                replicas.append(replicas_item)

        readiness = cls(
            status=status,
            database=database,
            dialect=dialect,
            tier=tier,
            tier_name=tier_name,
            open_mode=open_mode,
            embedding=embedding,
            replicas=replicas,
        )

        readiness.additional_properties = d
        return readiness

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
