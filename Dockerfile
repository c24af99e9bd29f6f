# syntax=docker/dockerfile:1
# Build: a static binary. Generated templ files and vendored assets are
# committed, so the build needs only Go and the module cache.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/reconcile-demo ./cmd/reconcile-demo

# Run: no shell, no package manager, non-root (uid 65532).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/reconcile-demo /reconcile-demo
ENV ADDR=:8080
EXPOSE 8080
USER 65532:65532
ENTRYPOINT ["/reconcile-demo"]
