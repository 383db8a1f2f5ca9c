from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.histogram_bucket import HistogramBucket
    from ..models.metrics_snapshot_by_type import MetricsSnapshotByType
    from ..models.metrics_snapshot_records_by_type import MetricsSnapshotRecordsByType
    from ..models.metrics_snapshot_salience_distribution import MetricsSnapshotSalienceDistribution


T = TypeVar("T", bound="MetricsSnapshot")


@_attrs_define
class MetricsSnapshot:
    """Aggregates over the records the caller can see (SQL aggregates, no record loading).
    The original's snapshot fields carry its names and formulas (RFC 15.10); this
    service's earlier variants stay under their own names (docs/differences.md).

        Attributes:
            total_records (int):
            records_by_type (MetricsSnapshotRecordsByType):
            avg_salience (float | None): Mean current (decayed) salience.
            avg_confidence (float | None):
            salience_distribution (MetricsSnapshotSalienceDistribution): The original's five buckets: 0.0-0.2, 0.2-0.4,
                0.4-0.6, 0.6-0.8, 0.8-1.0.
            active_records (int): Records with current salience > 0.
            pinned_records (int):
            total_audit_entries (int): Entries in the audit log (all records).
            memory_growth_rate (float): Fraction of records created in the last 24 hours (0 with no records).
            retrieval_usefulness (float | None): Reinforce actions / all audit entries.
            competence_success_rate (float | None): Successes / executions summed over competence records.
            plan_reuse_frequency (float | None): Mean execution count of plan graphs.
            revision_rate (float | None): Revision actions (supersede, retract, contest, fork, merge: the original's revise,
                fork, merge) / all audit entries.
            computed_at (datetime.datetime):
            total (int): As total_records.
            by_type (MetricsSnapshotByType): As records_by_type.
            salience_histogram (list[HistogramBucket]): Ten buckets of width 0.1.
            active (int): Records whose status is active.
            pinned (int): As pinned_records.
            audit_entries (int): As total_audit_entries.
            records_per_hour_24h (float): Records created in the last 24 hours, per hour (earlier memory_growth_rate).
            feedback_usefulness_30d (float | None): Reinforcements / (reinforcements + penalties) over the last 30 days
                (earlier retrieval_usefulness).
            revised_record_share (float | None): Share of records that are superseded, retracted or contested (earlier
                revision_rate).
    """

    total_records: int
    records_by_type: MetricsSnapshotRecordsByType
    avg_salience: float | None
    avg_confidence: float | None
    salience_distribution: MetricsSnapshotSalienceDistribution
    active_records: int
    pinned_records: int
    total_audit_entries: int
    memory_growth_rate: float
    retrieval_usefulness: float | None
    competence_success_rate: float | None
    plan_reuse_frequency: float | None
    revision_rate: float | None
    computed_at: datetime.datetime
    total: int
    by_type: MetricsSnapshotByType
    salience_histogram: list[HistogramBucket]
    active: int
    pinned: int
    audit_entries: int
    records_per_hour_24h: float
    feedback_usefulness_30d: float | None
    revised_record_share: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.histogram_bucket import HistogramBucket  # noqa: PLC0415
        from ..models.metrics_snapshot_by_type import MetricsSnapshotByType  # noqa: PLC0415
        from ..models.metrics_snapshot_records_by_type import MetricsSnapshotRecordsByType  # noqa: PLC0415
        from ..models.metrics_snapshot_salience_distribution import MetricsSnapshotSalienceDistribution  # noqa: PLC0415

        total_records = self.total_records

        records_by_type = self.records_by_type.to_dict()

        avg_salience: float | None
        avg_salience = self.avg_salience

        avg_confidence: float | None
        avg_confidence = self.avg_confidence

        salience_distribution = self.salience_distribution.to_dict()

        active_records = self.active_records

        pinned_records = self.pinned_records

        total_audit_entries = self.total_audit_entries

        memory_growth_rate = self.memory_growth_rate

        retrieval_usefulness: float | None
        retrieval_usefulness = self.retrieval_usefulness

        competence_success_rate: float | None
        competence_success_rate = self.competence_success_rate

        plan_reuse_frequency: float | None
        plan_reuse_frequency = self.plan_reuse_frequency

        revision_rate: float | None
        revision_rate = self.revision_rate

        computed_at = self.computed_at.isoformat()

        total = self.total

        by_type = self.by_type.to_dict()

        salience_histogram = []
        for salience_histogram_item_data in self.salience_histogram:
            salience_histogram_item = salience_histogram_item_data.to_dict()
            salience_histogram.append(salience_histogram_item)

        active = self.active

        pinned = self.pinned

        audit_entries = self.audit_entries

        records_per_hour_24h = self.records_per_hour_24h

        feedback_usefulness_30d: float | None
        feedback_usefulness_30d = self.feedback_usefulness_30d

        revised_record_share: float | None
        revised_record_share = self.revised_record_share

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "total_records": total_records,
                "records_by_type": records_by_type,
                "avg_salience": avg_salience,
                "avg_confidence": avg_confidence,
                "salience_distribution": salience_distribution,
                "active_records": active_records,
                "pinned_records": pinned_records,
                "total_audit_entries": total_audit_entries,
                "memory_growth_rate": memory_growth_rate,
                "retrieval_usefulness": retrieval_usefulness,
                "competence_success_rate": competence_success_rate,
                "plan_reuse_frequency": plan_reuse_frequency,
                "revision_rate": revision_rate,
                "computed_at": computed_at,
                "total": total,
                "by_type": by_type,
                "salience_histogram": salience_histogram,
                "active": active,
                "pinned": pinned,
                "audit_entries": audit_entries,
                "records_per_hour_24h": records_per_hour_24h,
                "feedback_usefulness_30d": feedback_usefulness_30d,
                "revised_record_share": revised_record_share,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.histogram_bucket import HistogramBucket  # noqa: PLC0415
        from ..models.metrics_snapshot_by_type import MetricsSnapshotByType  # noqa: PLC0415
        from ..models.metrics_snapshot_records_by_type import MetricsSnapshotRecordsByType  # noqa: PLC0415
        from ..models.metrics_snapshot_salience_distribution import MetricsSnapshotSalienceDistribution  # noqa: PLC0415

        d = dict(src_dict)
        total_records = d.pop("total_records")

        records_by_type = MetricsSnapshotRecordsByType.from_dict(d.pop("records_by_type"))

        def _parse_avg_salience(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        avg_salience = _parse_avg_salience(d.pop("avg_salience"))

        def _parse_avg_confidence(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        avg_confidence = _parse_avg_confidence(d.pop("avg_confidence"))

        salience_distribution = MetricsSnapshotSalienceDistribution.from_dict(d.pop("salience_distribution"))

        active_records = d.pop("active_records")

        pinned_records = d.pop("pinned_records")

        total_audit_entries = d.pop("total_audit_entries")

        memory_growth_rate = d.pop("memory_growth_rate")

        def _parse_retrieval_usefulness(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        retrieval_usefulness = _parse_retrieval_usefulness(d.pop("retrieval_usefulness"))

        def _parse_competence_success_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        competence_success_rate = _parse_competence_success_rate(d.pop("competence_success_rate"))

        def _parse_plan_reuse_frequency(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        plan_reuse_frequency = _parse_plan_reuse_frequency(d.pop("plan_reuse_frequency"))

        def _parse_revision_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        revision_rate = _parse_revision_rate(d.pop("revision_rate"))

        computed_at = datetime.datetime.fromisoformat(d.pop("computed_at"))

        total = d.pop("total")

        by_type = MetricsSnapshotByType.from_dict(d.pop("by_type"))

        salience_histogram = []
        _salience_histogram = d.pop("salience_histogram")
        for salience_histogram_item_data in _salience_histogram:
            salience_histogram_item = HistogramBucket.from_dict(salience_histogram_item_data)

            salience_histogram.append(salience_histogram_item)

        active = d.pop("active")

        pinned = d.pop("pinned")

        audit_entries = d.pop("audit_entries")

        records_per_hour_24h = d.pop("records_per_hour_24h")

        def _parse_feedback_usefulness_30d(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        feedback_usefulness_30d = _parse_feedback_usefulness_30d(d.pop("feedback_usefulness_30d"))

        def _parse_revised_record_share(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        revised_record_share = _parse_revised_record_share(d.pop("revised_record_share"))

        metrics_snapshot = cls(
            total_records=total_records,
            records_by_type=records_by_type,
            avg_salience=avg_salience,
            avg_confidence=avg_confidence,
            salience_distribution=salience_distribution,
            active_records=active_records,
            pinned_records=pinned_records,
            total_audit_entries=total_audit_entries,
            memory_growth_rate=memory_growth_rate,
            retrieval_usefulness=retrieval_usefulness,
            competence_success_rate=competence_success_rate,
            plan_reuse_frequency=plan_reuse_frequency,
            revision_rate=revision_rate,
            computed_at=computed_at,
            total=total,
            by_type=by_type,
            salience_histogram=salience_histogram,
            active=active,
            pinned=pinned,
            audit_entries=audit_entries,
            records_per_hour_24h=records_per_hour_24h,
            feedback_usefulness_30d=feedback_usefulness_30d,
            revised_record_share=revised_record_share,
        )

        metrics_snapshot.additional_properties = d
        return metrics_snapshot

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
