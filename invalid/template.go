package invalid

import "strings"

// mark delimits option names in a Template. No message has it otherwise.
const mark = "\x00"

// Template returns the message with its values formatted in and its
// options still marked as options, for carrying the error to another
// process (the control socket of a running cluster) as text. FromTemplate
// rebuilds the error there, so that the receiver names the options its own
// way.
func (e *Error) Template() string {
	return e.Text(func(field string) string { return mark + field + mark })
}

// FromTemplate rebuilds an error from its Template. Text between the marks
// is an option's name; everything else is taken literally, so values from
// the user are still never read as names.
func FromTemplate(t string) *Error {
	var f strings.Builder
	var args []any
	for i, part := range strings.Split(t, mark) {
		switch {
		case i%2 == 1:
			f.WriteString("{" + part + "}")
		case part != "":
			f.WriteString("%s")
			args = append(args, part)
		}
	}
	return &Error{format: f.String(), args: args}
}
