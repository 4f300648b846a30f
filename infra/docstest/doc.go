// Package docstest runs the documentation's examples: every fenced ```sh
// block of README.md and docs/*.md, in order, page by page, against a local
// gateway of its own (./infra/local on a fresh data directory and sandbox
// key, as `make run` serves it), with the page's documented environment (API,
// KEY and the README's json helper), and checks each `# -> ...` line against
// the answer of the curl above it. The convention is written down at the top
// of docs/conventions.md ("Examples are tests"); a page whose example breaks
// fails `go test ./infra/docstest`, and so `make test`.
package docstest
