// Package docs holds the guides (Markdown, one file per task) and embeds
// them, so the service serves the very files a reader sees on GitHub
// (shared/console/dashboard/docsite renders them at /docs). Go's embed
// reaches only files at or below the package's directory, hence this file.
package docs

import "embed"

// FS is every guide (docs/*.md), read at build time.
//
//go:embed *.md
var FS embed.FS
