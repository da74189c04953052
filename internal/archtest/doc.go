// Package archtest holds no code: its test enforces the import rules that
// docs/architecture.md states, so the tree keeps reading as the data flow
// (lab → emulate → load → measure → judge → render) as it grows.
package archtest
