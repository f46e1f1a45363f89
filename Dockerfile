# Build: docker build -t promptdesk .
# Run:   docker run -p 8080:8080 -e DATABASE_URL=postgres://... promptdesk
# The image holds the binary only; it needs DATABASE_URL (no private cluster).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/promptdesk ./cmd/promptdesk

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/promptdesk /promptdesk
EXPOSE 8080
ENTRYPOINT ["/promptdesk", "serve", "--addr", "0.0.0.0:8080"]
