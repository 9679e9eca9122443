# syntax=docker/dockerfile:1
# Axiom Server: a release build with the Swift standard library linked in
# statically, on a slim Debian runtime that has only libsqlite3, libpq,
# libsodium, zlib, libssl and the CA store. The base images are build arguments, so a registry mirror or
# local stand-ins (scripts/container-test.sh) can take their place.
#
#   docker build -t axiom-server .
#   docker run -p 8080:8080 -v axiom-data:/data axiom-server
ARG SWIFT_IMAGE=swift:6.2-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
# Unpinned on purpose (DL3008): the suite's current packages carry its
# security fixes, and a pinned version vanishes from the mirror when replaced.
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libsqlite3-dev libpq-dev libsodium-dev zlib1g-dev libssl-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Package.swift names the test targets, so their folders come too; the
# manifest first, so a change in Sources/ does not redo the layers above.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product axiom-server \
    && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/axiom-server" /out/axiom-server \
    && strip /out/axiom-server

FROM ${RUNTIME_IMAGE}
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libsqlite3-0 libpq5 libsodium23 zlib1g libssl3 ca-certificates \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /usr/share/doc/* /usr/share/man/* \
    && groupadd --system --gid 10001 axiom \
    && useradd --system --uid 10001 --gid axiom --home-dir /data --no-create-home --shell /usr/sbin/nologin axiom \
    && mkdir -p /data /etc/axiom \
    && chown axiom:axiom /data
COPY --from=build /out/axiom-server /usr/local/bin/axiom-server
COPY config/default.json /etc/axiom/default.json
COPY config/mail /etc/axiom/mail
# Listen on every interface inside the container; keep the database on the
# volume; the mail templates where the image has them.
ENV AXIOM_HOST=0.0.0.0 \
    AXIOM_MAIL_TEMPLATES=/etc/axiom/mail \
    AXIOM_PORT=8080 \
    AXIOM_DATABASE=/data/axiom.db
# Numeric, so an orchestrator can tell it is not root (runAsNonRoot).
USER 10001:10001
VOLUME ["/data"]
EXPOSE 8080
# The binary probes itself (GET /ready): no curl needed in the image.
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
    CMD ["/usr/local/bin/axiom-server", "healthcheck"]
STOPSIGNAL SIGTERM
# Exec form: the server is PID 1 and gets SIGTERM itself, drains and exits 0.
ENTRYPOINT ["/usr/local/bin/axiom-server"]
