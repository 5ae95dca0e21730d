package etcdmaintenance

import (
	"bytes"
	"context"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Restored counts what Restore did with each key of a snapshot.
type Restored struct {
	// Written are keys that were missing and now hold the snapshot's value.
	Written int
	// Unchanged are keys that hold the snapshot's value already.
	Unchanged int
	// Differ are keys that exist with another value: left as they are (the live value is newer than a backup).
	Differ []string
	// Leased are keys bound to a lease (short-lived by design), not restored.
	Leased int
}

// Restore writes every key of the snapshot content that the etcd lacks, with its stored value as it is (encoded,
// compressed or encrypted as the server wrote it), so objects come back with their UIDs, owner references,
// finalizers and status. Keys that exist are never overwritten. Each write is a transaction that puts only if
// the key is still absent, so a server that writes at the same time is not overwritten either (though the
// restore is meant to run while aim-apiserver is stopped: see docs/operations.md).
func Restore(ctx context.Context, kv clientv3.KV, content *Content, dryRun bool) (*Restored, error) {
	r := &Restored{}
	for _, want := range content.KVs {
		if want.Lease != 0 {
			r.Leased++
			continue
		}
		key := string(want.Key)
		got, err := kv.Get(ctx, key)
		if err != nil {
			return r, fmt.Errorf("reading %s: %w", key, err)
		}
		if len(got.Kvs) > 0 {
			if bytes.Equal(got.Kvs[0].Value, want.Value) {
				r.Unchanged++
			} else {
				r.Differ = append(r.Differ, key)
			}
			continue
		}
		if dryRun {
			r.Written++
			continue
		}
		if err := putIfAbsent(ctx, kv, want); err != nil {
			return r, err
		}
		r.Written++
	}
	return r, nil
}

func putIfAbsent(ctx context.Context, kv clientv3.KV, want *mvccpb.KeyValue) error {
	key := string(want.Key)
	resp, err := kv.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(want.Value))).
		Commit()
	if err != nil {
		return fmt.Errorf("writing %s: %w", key, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("writing %s: it was created while restoring; is aim-apiserver still running?", key)
	}
	return nil
}
