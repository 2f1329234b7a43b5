# SPDX-License-Identifier: Apache-2.0
"""The data set, made here (no download): sensor-like records of 10 classes.

Each class is a prototype in a 12-dimensional latent space; a sample is its
class's prototype plus noise, seen through a fixed random nonlinear map as
64 raw features of very different scales (some are positive counts with a
long tail). The serving side receives the test samples as text records of
name=value fields, a few of them missing, as a service would
(preprocess.py parses them).
"""

import torch

FEATURES = 64
CLASSES = 10
LATENT = 12
TRAIN = 16384
TEST = 2048
MISSING = 0.02  # share of test fields left empty
COUNTS_FROM = FEATURES * 3 // 4  # features from here on are counts


def make(seed=20260101):
    """(train_x, train_y, test_x, test_y): raw float32 features, int64 labels."""
    gen = torch.Generator().manual_seed(seed)
    prototypes = torch.randn(CLASSES, LATENT, generator=gen) * 1.2
    mixing = torch.randn(LATENT, FEATURES, generator=gen) / LATENT ** 0.5
    scale = torch.exp(torch.randn(FEATURES, generator=gen) * 1.5)
    offset = torch.randn(FEATURES, generator=gen) * 10

    def sample(n):
        labels = torch.randint(CLASSES, (n,), generator=gen)
        latent = prototypes[labels] + torch.randn(n, LATENT, generator=gen)
        z = torch.tanh(latent @ mixing * 1.5)
        z = z + torch.randn(n, FEATURES, generator=gen) * 0.2
        x = z * scale + offset
        # The last quarter of the features are counts: positive, long-tailed.
        x[:, COUNTS_FROM:] = torch.exp(z[:, COUNTS_FROM:] * 2) * scale[COUNTS_FROM:]
        return x, labels

    train_x, train_y = sample(TRAIN)
    test_x, test_y = sample(TEST)
    return train_x, train_y, test_x, test_y


def write_records(path, x, y, seed=7):
    """Writes "label;id;f00=v,f01=v,..." lines, some fields left out."""
    gen = torch.Generator().manual_seed(seed)
    missing = torch.rand(x.shape, generator=gen) < MISSING
    with open(path, "w", encoding="ascii") as out:
        for i in range(x.shape[0]):
            fields = ["f%02d=%.5g" % (j, float(x[i, j]))
                      for j in range(x.shape[1]) if not missing[i, j]]
            out.write("%d;r%05d;%s\n" % (int(y[i]), i, ",".join(fields)))
