# Build: docker build -t promptdesk .
# Run:   docker run -p 8080:8080 -e DATABASE_URL=postgres://... promptdesk
# Other commands: docker run --rm -e DATABASE_URL=... promptdesk token add --scope assemble NAME
# The image holds the binary only (no shell, no Postgres): it needs
# DATABASE_URL. docs/operating.md, docs/configuration.md.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/promptdesk ./cmd/promptdesk

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/promptdesk /promptdesk
ENV PROMPTDESK_ADDR=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/promptdesk"]
CMD ["serve"]
