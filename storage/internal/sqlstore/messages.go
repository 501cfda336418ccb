package sqlstore

import (
	"context"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/messages"
)

var _ messages.Store = (*Core)(nil)

// templateColumns are the columns scanTemplate reads, in its order.
const templateColumns = `id, brand_id, kind, language, subject, text_body, html_body, created_at, updated_at`

func (c *Core) scanTemplate(row Scanner) (messages.Template, error) {
	var t messages.Template
	err := row.Scan(&t.ID, &t.BrandID, &t.Kind, &t.Language, &t.Subject, &t.Text, &t.HTML,
		c.d.ScanTime(&t.CreatedAt), c.d.ScanTime(&t.UpdatedAt))
	return t, err
}

// CreateTemplate implements messages.Store: messages.ErrTemplateExists
// when the brand has one of its kind and language, auth.ErrBrandNotFound
// when the brand does not exist.
func (c *Core) CreateTemplate(ctx context.Context, t messages.Template) error {
	return c.write(ctx, func(tx DB) error {
		_, err := c.exec(ctx, tx, messages.ErrTemplateExists, auth.ErrBrandNotFound, `INSERT INTO message_templates
			(`+templateColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			t.ID, t.BrandID, t.Kind, t.Language, t.Subject, t.Text, t.HTML, c.d.Time(t.CreatedAt), c.d.Time(t.UpdatedAt))
		return err
	})
}

// UpdateTemplate implements messages.Store.
func (c *Core) UpdateTemplate(ctx context.Context, t messages.Template) error {
	return c.write(ctx, func(tx DB) error {
		return c.execOne(ctx, tx, messages.ErrTemplateNotFound, messages.ErrTemplateExists, `UPDATE message_templates
			SET kind = ?, language = ?, subject = ?, text_body = ?, html_body = ?, updated_at = ?
			WHERE id = ? AND brand_id = ?`,
			t.Kind, t.Language, t.Subject, t.Text, t.HTML, c.d.Time(t.UpdatedAt), t.ID, t.BrandID)
	})
}

// DeleteTemplate implements messages.Store.
func (c *Core) DeleteTemplate(ctx context.Context, brandID, id string) error {
	return c.write(ctx, func(tx DB) error {
		return c.execOne(ctx, tx, messages.ErrTemplateNotFound, nil,
			`DELETE FROM message_templates WHERE id = ? AND brand_id = ?`, id, brandID)
	})
}

// TemplateByID implements messages.Store.
func (c *Core) TemplateByID(ctx context.Context, brandID, id string) (messages.Template, error) {
	return queryOne(ctx, c, c.r, c.scanTemplate, messages.ErrTemplateNotFound,
		`SELECT `+templateColumns+` FROM message_templates WHERE id = ? AND brand_id = ?`, id, brandID)
}

// ListTemplates implements messages.Store.
func (c *Core) ListTemplates(ctx context.Context, brandID, kind string) ([]messages.Template, error) {
	return QueryAll(ctx, c, c.r, c.scanTemplate, `SELECT `+templateColumns+` FROM message_templates
		WHERE brand_id = ? AND (CAST(? AS TEXT) = '' OR kind = ?) ORDER BY kind, language, created_at, id`,
		brandID, kind, kind)
}
