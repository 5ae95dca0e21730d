package migrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// backupFile is the latest backup in the backup directory; every backup is also kept under its time.
const backupFile = "backup.json"

// pendingAPIServiceFile, in the backup directory, is the APIService that migrate deletes to register it anew
// (ensureOpenAPI), saved before the delete and removed once it is created again. While it exists, nothing may serve
// the group: a second run creates the APIService from it.
const pendingAPIServiceFile = "apiservice-pending.yaml"

// Backup is everything the migration read before it changed anything: the CRDs, the APIService and every
// object of the group, as the CRDs served them.
type Backup struct {
	Taken      time.Time                   `json:"taken"`
	APIService *unstructured.Unstructured  `json:"apiService,omitempty"`
	CRDs       []unstructured.Unstructured `json:"crds"`
	Objects    []unstructured.Unstructured `json:"objects"`
	// StrippedFinalizers are the finalizers the migration took off the CRD objects, by UID, so that deleting
	// the CRDs can finish. The copies in aim-apiserver keep them; a rollback gives them back.
	StrippedFinalizers map[types.UID][]string `json:"strippedFinalizers,omitempty"`
}

func readBackup(dir string) (*Backup, error) {
	data, err := os.ReadFile(filepath.Join(dir, backupFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the backup: %w", err)
	}
	var b Backup
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("reading the backup %s: %w", filepath.Join(dir, backupFile), err)
	}
	return &b, nil
}

// writeBackup writes the backup under its time and then, atomically, as the latest: an interrupted write
// leaves the previous backup intact.
func writeBackup(dir string, b *Backup) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the backup directory: %w", err)
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return "", err
	}
	stamped := filepath.Join(dir, "backup-"+b.Taken.UTC().Format("20060102T150405Z")+".json")
	for _, path := range []string{stamped, filepath.Join(dir, backupFile)} {
		if err := writeFileAtomic(path, data); err != nil {
			return "", fmt.Errorf("writing the backup: %w", err)
		}
	}
	return stamped, nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".backup-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// savePendingAPIService writes the APIService to pendingAPIServiceFile in dir and returns the file's path.
func savePendingAPIService(dir string, as *unstructured.Unstructured) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the backup directory: %w", err)
	}
	data, err := yaml.Marshal(as.Object)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, pendingAPIServiceFile)
	if err := writeFileAtomic(path, data); err != nil {
		return "", fmt.Errorf("saving the APIService to %s: %w", path, err)
	}
	return path, nil
}

// removePendingAPIService removes pendingAPIServiceFile from dir once APIService exists again.
func removePendingAPIService(dir string) error {
	path := filepath.Join(dir, pendingAPIServiceFile)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("APIService %s exists, but %s is left (remove it): %w", apiServiceName, path, err)
	}
	return nil
}

// readPendingAPIService reads pendingAPIServiceFile in dir: nil when there is none.
func readPendingAPIService(dir string) (*unstructured.Unstructured, string, error) {
	path := filepath.Join(dir, pendingAPIServiceFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, path, nil
	}
	if err != nil {
		return nil, path, fmt.Errorf("reading the saved APIService: %w", err)
	}
	var as unstructured.Unstructured
	if data, err = yaml.YAMLToJSON(data); err == nil {
		err = as.UnmarshalJSON(data)
	}
	if err != nil {
		return nil, path, fmt.Errorf("reading the saved APIService %s: %w", path, err)
	}
	return &as, path, nil
}
