// Package etcdmaintenance keeps aim-apiserver's etcd safe in operation: snapshots taken with etcd's own snapshot API
// (what `etcdctl snapshot save` writes, so etcdutl can restore one as a whole), a restore of the AIM objects of a
// snapshot that keeps their UIDs, and defragmentation member by member.
//
// Why a restore of the objects rather than of the database: a restore through the API (Velero and the like) gives
// every object a new UID, and the garbage collector then deletes every InferenceService, PVC and Job the old
// objects owned. Writing the stored values back under their keys keeps UIDs, owner references and finalizers as
// they were, works for an etcd shared with other data (only the keys under the prefix are touched), and leaves the
// etcd's revision going forward, so clients' resourceVersions never go back.
package etcdmaintenance

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.etcd.io/bbolt"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/snapshot"
	"go.uber.org/zap"
)

// Snapshot files are named for the time they were taken, so that names sort by age.
const (
	filePrefix = "aim-etcd-"
	fileSuffix = ".db"
	timeLayout = "20060102T150405Z"
)

// Saved describes a snapshot written by Save.
type Saved struct {
	Path     string
	Size     int64
	Revision int64
	// Objects is the number of keys under the prefix in the snapshot.
	Objects int
	// Removed are the older snapshots deleted to keep the count.
	Removed []string
}

// Save writes a snapshot of the etcd that cfg reaches (one endpoint) into dir, checks that it reads back, and then
// deletes the oldest snapshots of dir beyond keep (0 keeps all).
func Save(ctx context.Context, cfg clientv3.Config, dir, prefix string, keep int, now time.Time) (*Saved, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	path := filepath.Join(dir, filePrefix+now.UTC().Format(timeLayout)+fileSuffix)
	if _, err := snapshot.SaveWithVersion(ctx, zap.NewNop(), cfg, path); err != nil {
		return nil, fmt.Errorf("taking a snapshot of %v: %w", cfg.Endpoints, err)
	}
	content, err := Read(path, prefix)
	if err != nil {
		// A snapshot that does not read back is no backup; keep the older ones.
		_ = os.Remove(path)
		return nil, fmt.Errorf("the snapshot just taken does not read back: %w", err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	saved := &Saved{Path: path, Size: info.Size(), Revision: content.Revision, Objects: len(content.KVs)}
	saved.Removed, err = prune(dir, keep)
	return saved, err
}

// Snapshots lists the snapshot files of dir, oldest first.
func Snapshots(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && isSnapshotName(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(out)
	return out, nil
}

func isSnapshotName(name string) bool {
	return strings.HasPrefix(name, filePrefix) && strings.HasSuffix(name, fileSuffix) && !strings.ContainsAny(name, `/\`)
}

// CopyTo uploads the snapshot to a bucket and then deletes the bucket's oldest snapshots beyond keep (0 keeps all).
func (s *Saved) CopyTo(ctx context.Context, b *Bucket, keep int) (removed []string, err error) {
	if err := b.Upload(ctx, s.Path); err != nil {
		return nil, err
	}
	return b.Prune(ctx, keep)
}

func prune(dir string, keep int) ([]string, error) {
	all, err := Snapshots(dir)
	if err != nil || keep <= 0 || len(all) <= keep {
		return nil, err
	}
	old := all[:len(all)-keep]
	for _, p := range old {
		if err := os.Remove(p); err != nil {
			return nil, fmt.Errorf("removing an old snapshot: %w", err)
		}
	}
	return old, nil
}

// Content is what a snapshot holds under a prefix: the latest value of every key, in key order.
type Content struct {
	Revision int64
	KVs      []*mvccpb.KeyValue
}

// Read opens a snapshot file (etcd's database with the SHA-256 etcd appends to a snapshot) and returns the keys
// under prefix as they were at the snapshot's revision. The checksum is verified first.
func Read(path, prefix string) (*Content, error) {
	if err := verifyChecksum(path); err != nil {
		return nil, err
	}
	db, err := bbolt.Open(path, 0o400, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("opening %s as an etcd database: %w", path, err)
	}
	defer db.Close()
	latest := map[string]*mvccpb.KeyValue{}
	var revision int64
	err = db.View(func(tx *bbolt.Tx) error {
		keys := tx.Bucket([]byte("key"))
		if keys == nil {
			return errors.New("no key bucket: not an etcd v3 database")
		}
		// Keys of the bucket are revisions (8 bytes main, '_', 8 bytes sub, then 't' for a deletion), in order;
		// a compaction keeps each key's latest revision, so the last entry of a key is its state.
		return keys.ForEach(func(rev, value []byte) error {
			if len(rev) < 17 {
				return fmt.Errorf("revision key of %d bytes", len(rev))
			}
			var kv mvccpb.KeyValue
			if err := kv.Unmarshal(value); err != nil {
				return fmt.Errorf("decoding a key-value: %w", err)
			}
			revision = max(revision, kv.ModRevision)
			if !strings.HasPrefix(string(kv.Key), prefix) {
				return nil
			}
			if len(rev) > 17 && rev[17] == 't' {
				delete(latest, string(kv.Key))
				return nil
			}
			latest[string(kv.Key)] = &kv
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	c := &Content{Revision: revision}
	for _, k := range slices.Sorted(maps.Keys(latest)) {
		c.KVs = append(c.KVs, latest[k])
	}
	return c, nil
}

// verifyChecksum checks the SHA-256 etcd appends to a snapshot stream.
func verifyChecksum(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	size := info.Size()
	if size%512 != sha256.Size {
		return fmt.Errorf("%s is not an etcd snapshot (%d bytes, no SHA-256 at its end)", path, size)
	}
	h := sha256.New()
	if _, err := io.CopyN(h, f, size-sha256.Size); err != nil {
		return err
	}
	want := make([]byte, sha256.Size)
	if _, err := io.ReadFull(f, want); err != nil {
		return err
	}
	if !bytes.Equal(h.Sum(nil), want) {
		return fmt.Errorf("%s is damaged: its SHA-256 does not match", path)
	}
	return nil
}
