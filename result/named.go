package result

// Named is a document and the name it is known by (its file's base name,
// or the command that made it), as reports and comparisons title it.
type Named struct {
	Name string
	Doc  *Document
}
