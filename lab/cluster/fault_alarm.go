package cluster

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// FaultAlarmDisarm is one alarm disarm, as Counts names it.
const FaultAlarmDisarm = result.OpAlarmDisarm

// alarmDisarm lists the cluster's alarms and disarms them all, as an
// operator's `etcdctl alarm disarm` after freeing space (NOSPACE) or
// checking a member (CORRUPT). It records the alarms it found ("m1:
// NOSPACE") and the cluster's windows meanwhile; it watches no member.
type alarmDisarm struct{}

func (alarmDisarm) About() About {
	return About{Name: FaultAlarmDisarm, Args: "nothing", MinArgs: 0, MaxArgs: 0,
		Help: "list the cluster's alarms (NOSPACE, CORRUPT) and disarm them all", Timeout: time.Minute}
}

func (f alarmDisarm) Apply(c *Cluster, r Request) error { return applyLong(f, c, r) }

func (f alarmDisarm) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	return injectLong(ctx, f, st, r)
}

func (f alarmDisarm) Run(ctx context.Context, c *Cluster, r Request) (Outcome, error) {
	return runCounted(ctx, f, c, r)
}

func (alarmDisarm) RunIn(ctx context.Context, st State, _ Request) (Outcome, error) {
	rec := &result.MaintenanceOp{Op: result.OpAlarmDisarm}
	conn := st.Client()
	conn.DialTimeout = etcdclient.DefaultDialTimeout
	cli, err := etcdclient.NewChecked(ctx, conn)
	if err != nil {
		return maintained(rec, "", err)
	}
	defer cli.Close()
	names := map[uint64]string{}
	for _, m := range st.Members {
		if id, err := strconv.ParseUint(m.ID, 16, 64); err == nil {
			names[id] = m.Name
		}
	}
	err = watched(ctx, conn, "", rec, func(ctx context.Context) error {
		list, err := cli.AlarmList(ctx)
		if err != nil {
			return err
		}
		for _, a := range list.Alarms {
			who := names[a.MemberID]
			if who == "" {
				who = strconv.FormatUint(a.MemberID, 16)
			}
			rec.Alarms = append(rec.Alarms, who+": "+a.Alarm.String())
		}
		if len(list.Alarms) == 0 {
			return nil
		}
		_, err = cli.AlarmDisarm(ctx, &clientv3.AlarmMember{})
		return err
	})
	if err != nil {
		return maintained(rec, "", err)
	}
	if len(rec.Alarms) == 0 {
		return maintained(rec, "no alarms to disarm", nil)
	}
	return maintained(rec, fmt.Sprintf("disarmed %s", strings.Join(rec.Alarms, ", ")), nil)
}
