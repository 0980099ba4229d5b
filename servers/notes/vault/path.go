// Package vault is the notes folder: Markdown files with front matter under one root directory,
// every path confined to it, every write atomic. It knows nothing of MCP or of the index.
package vault

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ext is the extension every note has.
const Ext = ".md"

// TrashDir is the folder, under the root, deleted notes are moved to.
const TrashDir = ".trash"

const (
	maxPathLen = 1024
	maxElemLen = 255
)

// CleanPath turns a note path given by a caller into the vault-relative, slash-separated form
// the vault uses: ".md" is added when missing. It refuses empty, absolute and parent ("..")
// paths, backslashes, control characters and hidden elements (".trash", ".git"), so the result
// is always local to the root. Symlinks are stopped later, when the file is opened.
func CleanPath(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", errors.New("the note path is empty: give one such as 'projects/ideas.md'")
	}
	if !strings.HasSuffix(strings.ToLower(p), Ext) {
		p += Ext
	}
	return checkRel(p)
}

// CleanFolder is CleanPath for a folder: "" (and "/" or ".") is the root.
func CleanFolder(p string) (string, error) {
	p = strings.Trim(strings.TrimSpace(p), "/")
	if p == "" || p == "." {
		return "", nil
	}
	return checkRel(p)
}

// CleanTrashPath accepts a path inside the trash, with or without the ".trash/" prefix.
func CleanTrashPath(p string) (string, error) {
	p = strings.TrimPrefix(strings.TrimSpace(p), TrashDir+"/")
	rel, err := CleanPath(p)
	if err != nil {
		return "", err
	}
	return TrashDir + "/" + rel, nil
}

func checkRel(p string) (string, error) {
	switch {
	case len(p) > maxPathLen:
		return "", fmt.Errorf("the path is longer than %d bytes", maxPathLen)
	case !utf8.ValidString(p):
		return "", errors.New("the path is not valid UTF-8")
	case strings.HasPrefix(p, "/"):
		return "", fmt.Errorf("%q is absolute: give a path relative to the notes folder", p)
	case strings.Contains(p, `\`):
		return "", fmt.Errorf("%q contains a backslash: separate folders with '/'", p)
	}
	for _, r := range p {
		if unicode.IsControl(r) {
			return "", fmt.Errorf("%q contains a control character", p)
		}
	}
	elems := strings.Split(p, "/")
	for _, e := range elems {
		switch {
		case e == "":
			return "", fmt.Errorf("%q has an empty folder name", p)
		case e == "..":
			return "", fmt.Errorf("%q leads outside the notes folder ('..' is not allowed)", p)
		case strings.HasPrefix(e, "."):
			return "", fmt.Errorf("%q has a hidden element %q: names may not start with '.'", p, e)
		case len(e) > maxElemLen:
			return "", fmt.Errorf("%q has a name longer than %d bytes", p, maxElemLen)
		case strings.TrimSpace(e) != e:
			return "", fmt.Errorf("%q has a name with leading or trailing spaces", p)
		}
	}
	if c := path.Clean(p); c != p {
		return "", fmt.Errorf("%q is not a clean path (did you mean %q?)", p, c)
	}
	return p, nil
}

// Folder is the folder part of a clean note path, "" at the root.
func Folder(rel string) string {
	d := path.Dir(rel)
	if d == "." {
		return ""
	}
	return d
}

// Stem is a note's file name without its extension.
func Stem(rel string) string {
	b := path.Base(rel)
	return b[:len(b)-len(path.Ext(b))]
}

// InFolder reports whether the clean note path rel is inside folder (or any folder below it).
func InFolder(rel, folder string) bool {
	return folder == "" || strings.HasPrefix(rel, folder+"/")
}
