package etcdmaintenance

import (
	"context"
	"fmt"
	"slices"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// MemberDefrag is what Defragment found and did on one member.
type MemberDefrag struct {
	Name     string
	Endpoint string
	Leader   bool
	// Size and InUse are the database file's size and the part of it in use, before.
	Size, InUse int64
	// SizeAfter is the file's size after defragmentation; 0 when it was skipped.
	SizeAfter int64
	Skipped   bool
}

// Defragment defragments every member whose database has at least minFree bytes and minFreeRatio of its size
// unused (what compaction freed, which etcd reuses but never gives back to the file system). A member blocks
// reads and writes while it defragments, so members go one at a time, the leader last, as etcd's operations
// guide advises. Members are reached at their advertised client URLs with the client's TLS configuration.
func Defragment(ctx context.Context, c *clientv3.Client, minFree int64, minFreeRatio float64) ([]MemberDefrag, error) {
	members, err := c.MemberList(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the members: %w", err)
	}
	var plan []MemberDefrag
	for _, m := range members.Members {
		if len(m.ClientURLs) == 0 {
			continue // a learner not started yet
		}
		ep := m.ClientURLs[0]
		st, err := c.Status(ctx, ep)
		if err != nil {
			return plan, fmt.Errorf("status of member %s (%s): %w", m.Name, ep, err)
		}
		plan = append(plan, MemberDefrag{Name: m.Name, Endpoint: ep, Leader: st.Leader == m.ID, Size: st.DbSize, InUse: st.DbSizeInUse})
	}
	// Followers first, leader last; a stable order otherwise.
	slices.SortStableFunc(plan, func(a, b MemberDefrag) int {
		switch {
		case a.Leader != b.Leader:
			if a.Leader {
				return 1
			}
			return -1
		default:
			return strings.Compare(a.Name, b.Name)
		}
	})
	for i := range plan {
		m := &plan[i]
		free := m.Size - m.InUse
		if free < minFree || m.Size == 0 || float64(free)/float64(m.Size) < minFreeRatio {
			m.Skipped = true
			continue
		}
		if _, err := c.Defragment(ctx, m.Endpoint); err != nil {
			return plan, fmt.Errorf("defragmenting member %s (%s): %w", m.Name, m.Endpoint, err)
		}
		st, err := c.Status(ctx, m.Endpoint)
		if err != nil {
			return plan, fmt.Errorf("status of member %s after defragmenting: %w", m.Name, err)
		}
		m.SizeAfter = st.DbSize
	}
	return plan, nil
}
