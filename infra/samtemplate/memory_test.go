package samtemplate

import (
	"os"
	"strings"
	"testing"
)

// TestEveryFunctionSizesItsMemory: every function sets its own MemorySize
// (none comes from Globals, so a new function cannot inherit a size nobody
// measured), at least Lambda's 128 MB, with the measured reason in the
// comment line above it, as `go run ./infra/invoke -memory -write` writes
// them (issue 17, item 3; docs/deploy.md's "Memory per function" says how).
func TestEveryFunctionSizesItsMemory(t *testing.T) {
	tpl := load(t)
	b, err := os.ReadFile(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if _, ok := tpl.GlobalFunction["MemorySize"]; ok {
		t.Errorf("Globals.Function sets MemorySize: each function sets its own from measured figures")
	}
	for _, f := range tpl.Functions() {
		mb, ok := intOf(f.Properties["MemorySize"])
		if !ok {
			t.Errorf("%s has no MemorySize: measure it and write it with\n  go run ./infra/invoke -memory -write -only '^%s$'\n(add an events/ sample for it first if it has none)", f.LogicalID, f.LogicalID)
			continue
		}
		if mb < 128 || mb > 10240 {
			t.Errorf("%s: MemorySize %d is outside Lambda's 128..10240 MB", f.LogicalID, mb)
		}
		block := resourceBlock(text, f.LogicalID)
		lines := strings.Split(block, "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "      MemorySize:") && (i == 0 || !strings.HasPrefix(lines[i-1], "      # Memory measured")) {
				t.Errorf("%s: MemorySize without the \"# Memory measured ...\" comment above it giving its reason", f.LogicalID)
			}
		}
	}
}

// resourceBlock is the text of one resource, from its logical id's line to
// the next resource.
func resourceBlock(text, id string) string {
	i := strings.Index(text, "\n  "+id+":\n")
	if i < 0 {
		return ""
	}
	rest := text[i+1:]
	lines := strings.Split(rest, "\n")
	for j := 1; j < len(lines); j++ {
		if l := lines[j]; len(l) > 2 && l[:2] == "  " && l[2] != ' ' && l[2] != '#' {
			return strings.Join(lines[:j], "\n")
		}
	}
	return rest
}
