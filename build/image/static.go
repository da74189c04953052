package image

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
)

// checkStatic refuses a binary that needs a dynamic loader: the image has
// none (build with CGO_ENABLED=0).
func checkStatic(bin []byte) error {
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		return fmt.Errorf("image: the binary is not an ELF executable: %w", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("image: the binary is dynamically linked; build it with CGO_ENABLED=0")
		}
	}
	return nil
}
