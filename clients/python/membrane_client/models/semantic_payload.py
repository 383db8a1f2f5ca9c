from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.evidence import Evidence
    from ..models.revision import Revision
    from ..models.validity import Validity


T = TypeVar("T", bound="SemanticPayload")


@_attrs_define
class SemanticPayload:
    """
    Attributes:
        kind (Literal['semantic']):
        subject (str):
        predicate (str):
        object_ (Any):
        validity (Validity | Unset): The original's validity: `mode` defaults to timeboxed when a window is given,
            else global.
        evidence (list[Evidence] | Unset):
        revision_policy (None | str | Unset):
        revision (Revision | Unset):
    """

    kind: Literal["semantic"]
    subject: str
    predicate: str
    object_: Any
    validity: Validity | Unset = UNSET
    evidence: list[Evidence] | Unset = UNSET
    revision_policy: None | str | Unset = UNSET
    revision: Revision | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.evidence import Evidence  # noqa: PLC0415
        from ..models.revision import Revision  # noqa: PLC0415
        from ..models.validity import Validity  # noqa: PLC0415

        kind = self.kind

        subject = self.subject

        predicate = self.predicate

        object_ = self.object_

        validity: dict[str, Any] | Unset = UNSET
        if not isinstance(self.validity, Unset):
            validity = self.validity.to_dict()

        evidence: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.evidence, Unset):
            evidence = []
            for evidence_item_data in self.evidence:
                evidence_item = evidence_item_data.to_dict()
                evidence.append(evidence_item)

        revision_policy: None | str | Unset
        if isinstance(self.revision_policy, Unset):
            revision_policy = UNSET
        else:
            revision_policy = self.revision_policy

        revision: dict[str, Any] | Unset = UNSET
        if not isinstance(self.revision, Unset):
            revision = self.revision.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "subject": subject,
                "predicate": predicate,
                "object": object_,
            }
        )
        if validity is not UNSET:
            field_dict["validity"] = validity
        if evidence is not UNSET:
            field_dict["evidence"] = evidence
        if revision_policy is not UNSET:
            field_dict["revision_policy"] = revision_policy
        if revision is not UNSET:
            field_dict["revision"] = revision

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.evidence import Evidence  # noqa: PLC0415
        from ..models.revision import Revision  # noqa: PLC0415
        from ..models.validity import Validity  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["semantic"], d.pop("kind"))
        if kind != "semantic":
            raise ValueError(f"kind must match const 'semantic', got '{kind}'")

        subject = d.pop("subject")

        predicate = d.pop("predicate")

        object_ = d.pop("object")

        _validity = d.pop("validity", UNSET)
        validity: Validity | Unset
        if isinstance(_validity, Unset):
            validity = UNSET
        else:
            validity = Validity.from_dict(_validity)

        _evidence = d.pop("evidence", UNSET)
        evidence: list[Evidence] | Unset = UNSET
        if _evidence is not UNSET:
            evidence = []
            for evidence_item_data in _evidence:
                evidence_item = Evidence.from_dict(evidence_item_data)

                evidence.append(evidence_item)

        def _parse_revision_policy(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        revision_policy = _parse_revision_policy(d.pop("revision_policy", UNSET))

        _revision = d.pop("revision", UNSET)
        revision: Revision | Unset
        if isinstance(_revision, Unset):
            revision = UNSET
        else:
            revision = Revision.from_dict(_revision)

        semantic_payload = cls(
            kind=kind,
            subject=subject,
            predicate=predicate,
            object_=object_,
            validity=validity,
            evidence=evidence,
            revision_policy=revision_policy,
            revision=revision,
        )

        return semantic_payload
