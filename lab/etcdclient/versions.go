package etcdclient

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// versionTimeout bounds each member's answer in MemberVersions.
const versionTimeout = 3 * time.Second

// MemberVersions asks every member of cli's cluster for its version, in
// parallel, each within 3 s, and returns them by member name (members
// that do not answer are left out) with VersionSummary of them. It reads
// only.
func MemberVersions(ctx context.Context, cli *clientv3.Client) (map[string]string, string, error) {
	lctx, cancel := context.WithTimeout(ctx, versionTimeout)
	ml, err := cli.MemberList(lctx)
	cancel()
	if err != nil {
		return nil, "", fmt.Errorf("list members: %w", Explain(err))
	}
	out := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, m := range ml.Members {
		if len(m.ClientURLs) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sctx, cancel := context.WithTimeout(ctx, versionTimeout)
			defer cancel()
			if st, err := cli.Status(sctx, m.ClientURLs[0]); err == nil {
				name := m.Name
				if name == "" {
					name = fmt.Sprintf("%x", m.ID)
				}
				mu.Lock()
				out[name] = st.Version
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out, VersionSummary(out), nil
}

// VersionSummary is members' versions as one string: their version when
// they agree, else "mixed: 3.5.35 (m1), 3.6.16 (m2, m3)"; "" for none.
func VersionSummary(byMember map[string]string) string {
	by := map[string][]string{}
	for name, v := range byMember {
		by[v] = append(by[v], name)
	}
	if len(by) == 1 {
		for v := range by {
			return v
		}
	}
	vs := make([]string, 0, len(by))
	for v := range by {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	parts := make([]string, len(vs))
	for i, v := range vs {
		sort.Strings(by[v])
		parts[i] = fmt.Sprintf("%s (%s)", v, strings.Join(by[v], ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return "mixed: " + strings.Join(parts, ", ")
}
