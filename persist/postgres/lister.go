package postgres

import "github.com/superstep/superstep/persist"

// The store serves persist.ExportHandler's list of threads too.
var _ persist.ThreadLister = (*Store)(nil)
