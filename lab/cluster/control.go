package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/result"
)

// The control socket lets other etcdlab processes (`cluster status`,
// `cluster fault`) ask the process that runs a cluster to change links,
// restart members and probe paths. It is an abstract Unix socket named
// after the controller's PID and start time and the cluster's data
// directory, so nothing is left on disk, two clusters of one process
// (tests run `cluster up` in-process side by side) never share one, and
// it answers only the controller's own user.

// ControlAddr is the control socket of the cluster whose controller is id
// and whose data directory is dataDir.
func ControlAddr(id proc.ID, dataDir string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(dataDir))
	return fmt.Sprintf("@etcdlab-%d-%d-%08x", id.PID, id.StartTime, h.Sum32())
}

// LinkView is one directed link as `cluster status` shows it.
type LinkView struct {
	wan.LinkStatus
	// ProbeRTT is a round trip timed through this link and its reverse
	// (member links only, when asked for); ProbeError says why not.
	ProbeRTT   time.Duration `json:"probe_rtt,omitempty"`
	ProbeError string        `json:"probe_error,omitempty"`
}

// LinkChange is a request to change links: set one, or partition or heal
// the links between A and B (B empty: A and every other member). Op is
// the fault's operation on the socket (About.linkOp): set for link,
// partition, heal.
type LinkChange struct {
	Op   string   `json:"op"` // set, partition, heal
	Dir  wan.Dir  `json:"dir"`
	Link wan.Link `json:"link"`
	A    string   `json:"a,omitempty"`
	B    string   `json:"b,omitempty"`
}

// ServeControl serves the control socket until ctx ends. It returns once
// listening (or failing to). The socket is named after the process and
// the data directory (ControlAddr). restarted, if set, is called after a member
// was restarted (its process changed), e.g. to rewrite the state file.
func (c *Cluster) ServeControl(ctx context.Context, restarted func()) error {
	ln, err := net.Listen("unix", ControlAddr(c.ctl, c.dir.root))
	if err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/links", c.handleLinks)
	mux.HandleFunc("POST /v1/links", c.handleLinkChange)
	mux.HandleFunc("POST /v1/restart/{member}", func(w http.ResponseWriter, r *http.Request) {
		err := c.applyFault(FaultRestart, Request{Args: []string{r.PathValue("member")}})
		if err == nil && restarted != nil {
			restarted()
		}
		reply(w, nil, err)
	})
	mux.HandleFunc("POST /v1/upgrade", func(w http.ResponseWriter, r *http.Request) {
		var req UpgradeRequest
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
			reply(w, nil, invalid.Errorf("bad request: %v", err))
			return
		}
		rep, err := c.move(r.Context(), req.To, req.Downgrade)
		if rep != nil && restarted != nil {
			restarted()
		}
		if rep == nil {
			reply(w, nil, err)
			return
		}
		out := UpgradeReply{Report: rep}
		if err != nil {
			out.Error = err.Error()
		}
		reply(w, out, nil)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(sameUser{ln}) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	return nil
}

func (c *Cluster) handleLinks(w http.ResponseWriter, r *http.Request) {
	if c.net == nil {
		reply(w, nil, errNotEmulated())
		return
	}
	st := c.Links()
	views := make([]LinkView, len(st))
	probe := r.URL.Query().Get("probe") != ""
	var wg sync.WaitGroup
	for i, s := range st {
		views[i].LinkStatus = s
		if !probe || s.From == ClientNode || s.To == ClientNode {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
			defer cancel()
			rtt, err := c.ProbeRTT(ctx, s.From, s.To)
			views[i].ProbeRTT = rtt
			if err != nil {
				views[i].ProbeError = err.Error()
			}
		}()
	}
	wg.Wait()
	reply(w, views, nil)
}

func (c *Cluster) handleLinkChange(w http.ResponseWriter, r *http.Request) {
	var ch LinkChange
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&ch); err != nil {
		reply(w, nil, invalid.Errorf("bad request: %v", err))
		return
	}
	f, ok := faultByLinkOp(ch.Op)
	if !ok {
		reply(w, nil, invalid.Errorf("unknown link operation %q", ch.Op))
		return
	}
	reply(w, nil, f.Apply(c, ch.request()))
}

// applyFault applies the fault called name to c as r says.
func (c *Cluster) applyFault(name string, r Request) error {
	f, err := LookupFault(name)
	if err != nil {
		return err
	}
	return f.Apply(c, r)
}

// request is ch as its fault's request: a set names its direction, a
// partition or heal its members (B empty: A and every other member).
func (ch LinkChange) request() Request {
	if ch.Dir != (wan.Dir{}) {
		return Request{Args: []string{ch.Dir.From, ch.Dir.To}, Link: ch.Link}
	}
	return Request{Args: []string{ch.A, ch.B}, Link: ch.Link}
}

// errorReply is how the control socket answers a request that failed.
// Invalid input keeps its options marked (invalid.Error.Template), so that
// the client names them as its own command does.
type errorReply struct {
	Error   string `json:"error"`
	Invalid bool   `json:"invalid,omitempty"`
}

// reply writes v as JSON, or err as an errorReply.
func reply(w http.ResponseWriter, v any, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		e := errorReply{Error: err.Error()}
		if inv := invalid.As(err); inv != nil {
			e.Error, e.Invalid = strings.Replace(e.Error, inv.Error(), inv.Template(), 1), true
		}
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(e)
		return
	}
	if v == nil {
		v = map[string]string{}
	}
	_ = json.NewEncoder(w).Encode(v)
}

// sameUser accepts only connections from this process's user.
type sameUser struct{ net.Listener }

func (l sameUser) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if peerUID(c) == syscall.Geteuid() {
			return c, nil
		}
		c.Close()
	}
}

func peerUID(c net.Conn) int {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return -1
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1
	}
	uid := -1
	_ = raw.Control(func(fd uintptr) {
		if cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil {
			uid = int(cred.Uid)
		}
	})
	return uid
}

// Control is a client of a running cluster's control socket.
type Control struct {
	addr string
	hc   *http.Client
}

// NewControl connects to the controller that the state describes.
func NewControl(st State) *Control {
	addr := ControlAddr(st.Controller, st.DataDir)
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", addr)
	}}
	return &Control{addr: addr, hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

func (k *Control) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://etcdlab"+path, rd)
	if err != nil {
		return err
	}
	resp, err := k.hc.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach the etcdlab process running the cluster (%s): %w", k.addr, errors.Unwrap(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e errorReply
		if json.NewDecoder(resp.Body).Decode(&e) != nil || e.Error == "" {
			return fmt.Errorf("control socket: %s", resp.Status)
		}
		if e.Invalid {
			return invalid.FromTemplate(e.Error)
		}
		return errors.New(e.Error)
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Links returns every link, sorted by direction; probe also times each
// member path.
func (k *Control) Links(ctx context.Context, probe bool) ([]LinkView, error) {
	var out []LinkView
	path := "/v1/links"
	if probe {
		path += "?probe=1"
	}
	err := k.do(ctx, http.MethodGet, path, nil, &out)
	return out, err
}

// Change changes links.
func (k *Control) Change(ctx context.Context, ch LinkChange) error {
	return k.do(ctx, http.MethodPost, "/v1/links", ch, nil)
}

// Restart starts an exited member again.
func (k *Control) Restart(ctx context.Context, member string) error {
	return k.do(ctx, http.MethodPost, "/v1/restart/"+member, nil, nil)
}

// UpgradeRequest asks the controller for a rolling upgrade to To (a
// binary's path, a built version, or "embedded"); Downgrade refuses one
// that is not a downgrade (Cluster.Downgrade).
type UpgradeRequest struct {
	To        string `json:"to"`
	Downgrade bool   `json:"downgrade,omitempty"`
}

// UpgradeReply is what the controller did, and the error it stopped on.
type UpgradeReply struct {
	Report *result.Upgrade `json:"report"`
	Error  string          `json:"error,omitempty"`
}

// UpgradeTimeout bounds a rolling upgrade through the control socket.
const UpgradeTimeout = 15 * time.Minute

// Upgrade asks the controller to replace every member's etcd with to (a
// binary's path, or "embedded": resolve versions before, so the build
// happens here). It returns what was done, also when it stopped on an
// error.
func (k *Control) Upgrade(ctx context.Context, to string) (*result.Upgrade, error) {
	return k.move(ctx, UpgradeRequest{To: to})
}

// Downgrade is Upgrade that refuses what is not a downgrade
// (Cluster.Downgrade).
func (k *Control) Downgrade(ctx context.Context, to string) (*result.Upgrade, error) {
	return k.move(ctx, UpgradeRequest{To: to, Downgrade: true})
}

// move asks the controller for the move req describes.
func (k *Control) move(ctx context.Context, req UpgradeRequest) (*result.Upgrade, error) {
	ctx, cancel := context.WithTimeout(ctx, UpgradeTimeout)
	defer cancel()
	long := &Control{addr: k.addr, hc: &http.Client{Transport: k.hc.Transport}} // the context bounds it
	var out UpgradeReply
	if err := long.do(ctx, http.MethodPost, "/v1/upgrade", req, &out); err != nil {
		return nil, err
	}
	if out.Error != "" {
		return out.Report, errors.New(out.Error)
	}
	return out.Report, nil
}
