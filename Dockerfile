# syntax=docker/dockerfile:1
#
# The Logistics Fulfilment Service as a container image: built in a Rust
# image, run from a distroless one (glibc, CA certificates, no shell, no
# package manager) as the non-root user 65532. `compose.yaml` runs it with
# PostgreSQL and Redis; the README says how.

# The toolchain the repository is built and tested with.
ARG RUST_VERSION=1.95.0

FROM rust:${RUST_VERSION}-slim-bookworm AS build
WORKDIR /src
# The whole workspace (less what .dockerignore leaves out): cargo reads every
# member's manifest, and the service's build script reads spec/openapi.yaml.
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p logistics-service \
    && cp target/release/logistics-service /usr/local/bin/logistics-service \
    && mkdir -p /out/data

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /usr/local/bin/logistics-service /usr/local/bin/logistics-service
# SQLite's default file is ./data/<environment>.db: a folder the user owns.
COPY --from=build --chown=65532:65532 /out/data /data
WORKDIR /
USER 65532:65532
ENV LOGISTICS_LISTEN=0.0.0.0:8080 \
    LOGISTICS_LOG_FORMAT=json
EXPOSE 8080
# The image has no curl: the binary asks its own /healthz.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/logistics-service", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/logistics-service"]
CMD ["serve"]
