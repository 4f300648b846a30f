package samtemplate

import (
	"errors"
	"os"
	"path/filepath"
)

// FileName is the template's name at the repository root.
const FileName = "template.yaml"

// Find returns the path of the template.yaml in dir or its nearest parent, so
// tests and tools find it from whichever package directory they run in.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, FileName)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("samtemplate: no " + FileName + " in this directory or any parent")
		}
		dir = parent
	}
}

// LoadFrom finds the template from dir (see Find) and loads it.
func LoadFrom(dir string) (*Template, error) {
	p, err := Find(dir)
	if err != nil {
		return nil, err
	}
	return Load(p)
}
