# SPDX-License-Identifier: Apache-2.0
# The runtime image, ghcr.io/benchgate/benchgate:VERSION (docs/install.md):
# benchgate installed from its own .deb on Debian 12 slim, with git (the
# merge base, the results branch) and the system Python with the helper.
# No compilers and no gnuplot: a job that wants charts installs
# gnuplot-nox (the GitLab template's BENCHGATE_EXTRA_PACKAGES).
#
#   docker build -t ghcr.io/benchgate/benchgate:0.3.0 .
#
# The build stage makes the package exactly as the release workflow does;
# the version comes from the git tag when the context has .git.
ARG DEBIAN_TAG=bookworm

FROM debian:${DEBIAN_TAG} AS package
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      cmake make gcc libc6-dev pkg-config dpkg-dev file git ca-certificates \
      libgit2-dev libcjson-dev libcurl4-openssl-dev libssl-dev libpq-dev \
 && rm -rf /var/lib/apt/lists/*
COPY . /src
RUN git config --global --add safe.directory /src \
 && cmake -S /src -B /build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
 && cmake --build /build -j"$(nproc)" --target benchgate benchgate-launch \
 && cd /build && cpack -G DEB

FROM debian:${DEBIAN_TAG}-slim
COPY --from=package /build/packages/ /tmp/packages/
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      /tmp/packages/*.deb git ca-certificates python3 \
 && rm -rf /var/lib/apt/lists/* /tmp/packages \
 && benchgate --version
ARG VERSION=unknown
LABEL org.opencontainers.image.title="benchgate" \
      org.opencontainers.image.description="CI regression benchmarking with noise-aware statistics" \
      org.opencontainers.image.source="https://github.com/benchgate/benchgate" \
      org.opencontainers.image.url="https://github.com/benchgate/benchgate" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}"
# No entrypoint: CI systems run their own shell in the image.
CMD ["benchgate", "--help"]
