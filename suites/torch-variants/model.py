# SPDX-License-Identifier: Apache-2.0
"""The networks, and the choices shared by training and serving."""

import torch
from torch import nn

import data


class Classifier(nn.Module):
    """An MLP: features -> hidden layers (ReLU) -> class logits."""

    def __init__(self, hidden):
        super().__init__()
        sizes = [data.FEATURES] + list(hidden)
        layers = []
        for n_in, n_out in zip(sizes, sizes[1:]):
            layers += [nn.Linear(n_in, n_out), nn.ReLU()]
        layers.append(nn.Linear(sizes[-1], data.CLASSES))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


def teacher():
    return Classifier([128, 128])


def student():
    return Classifier([32])


def use_quantized_engine():
    """Dynamic int8 kernels: fbgemm on x86 builds that have it; Debian's
    torch has onednn and qnnpack. Training and serving must agree."""
    engines = torch.backends.quantized.supported_engines
    for engine in ("fbgemm", "onednn", "qnnpack"):
        if engine in engines:
            torch.backends.quantized.engine = engine
            return engine
    raise RuntimeError("no quantized engine in %s" % engines)
