# SPDX-License-Identifier: Apache-2.0
"""Serving-side preprocessing: text records to normalised feature rows.

Plain Python, as the parsing and cleaning in front of many deployed models
is; for the small networks of this suite it is most of a batch's latency,
so a slowdown here shows in every variant's latency.
"""

import json
import math

import data


class Preprocessor:
    """Parses "label;id;f00=v,f01=v,..." records with the training set's
    statistics (stats.json): fields in any order, a missing one becomes the
    mean, counts are log-scaled, every feature is standardised and clipped
    to 5 sigma."""

    def __init__(self, stats_path):
        with open(stats_path, encoding="ascii") as source:
            stats = json.load(source)
        self.mean = stats["mean"]
        self.inverse_std = [1.0 / s for s in stats["std"]]
        self.index = {"f%02d" % j: j for j in range(data.FEATURES)}

    def row(self, fields):
        out = [0.0] * data.FEATURES  # a missing field is the mean
        for field in fields:
            name, _, text = field.partition("=")
            j = self.index.get(name)
            if j is None:
                raise ValueError("unknown field %r" % name[:20])
            value = float(text)
            if j >= data.COUNTS_FROM:
                value = math.log1p(value)
            value = (value - self.mean[j]) * self.inverse_std[j]
            out[j] = min(5.0, max(-5.0, value))
        return out

    def __call__(self, records):
        """(feature rows, labels) of a batch of record lines."""
        rows, labels = [], []
        for record in records:
            label, _, fields = record.split(";")
            rows.append(self.row(fields.split(",")))
            labels.append(int(label))
        return rows, labels
