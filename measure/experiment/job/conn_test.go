package job

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLiveConn: a live setup's password is read from its file when the
// connection is made, its trailing newline dropped; a missing file names
// the setup.
func TestLiveConn(t *testing.T) {
	t.Parallel()
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Live{Setup: "prod", Endpoints: []string{"a:2379"}, User: "root", PasswordFile: pw}.Conn()
	if err != nil || c.User != "root:s3cret" || c.DialTimeout == 0 || c.Endpoints[0] != "a:2379" {
		t.Errorf("conn %+v, %v", c, err)
	}
	if c, err := (Live{User: "root"}).Conn(); err != nil || c.User != "root" {
		t.Errorf("without a password file: %+v, %v", c, err)
	}
	_, err = Live{Setup: "prod", PasswordFile: filepath.Join(t.TempDir(), "none")}.Conn()
	if err == nil || !strings.HasPrefix(err.Error(), "setup prod: password_file: ") {
		t.Errorf("missing file: %v", err)
	}
}
