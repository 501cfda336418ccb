package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/messages"
)

func runTemplate(ctx context.Context, c *cli, args []string) error {
	return subcommand(ctx, c, "template", args, map[string]func(context.Context, *cli, []string) error{
		"list": templateList, "set": templateSet, "delete": templateDelete,
	}, []string{"list", "set", "delete"})
}

// templateView is a message template as the command prints it.
type templateView struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Language string `json:"language"`
	Subject  string `json:"subject"`
	HTML     string `json:"html"`
	Text     string `json:"text"`
	Updated  string `json:"updated"`
}

func viewTemplate(t messages.Template) templateView {
	return templateView{ID: t.ID, Kind: t.Kind, Language: t.Language, Subject: t.Subject, HTML: t.HTML, Text: t.Text,
		Updated: when(t.UpdatedAt)}
}

// openBrand opens the App and finds the brand --brand names.
func openBrand(ctx context.Context, c *cli, f *flags, brand string) (*brandbase.App, auth.Brand, func(), error) {
	if brand == "" {
		return nil, auth.Brand{}, nil, usagef("no brand: give --brand URL")
	}
	app, done, err := f.openApp(ctx, false, c.adminLogger())
	if err != nil {
		return nil, auth.Brand{}, nil, err
	}
	b, err := findBrand(ctx, app, brand)
	if err != nil {
		done()
		return nil, auth.Brand{}, nil, err
	}
	return app, b, done, nil
}

func templateList(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "template list", "brandbase template list --brand URL [--kind KIND] [flags]")
	brand := f.String("brand", "", "the brand: its URL or ID (required)")
	kind := f.String("kind", "", "only the templates of this kind of message (password_reset)")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos); err != nil {
		return err
	}
	app, b, done, err := openBrand(ctx, c, f, *brand)
	if err != nil {
		return err
	}
	defer done()
	ts, err := app.Messages.Templates(ctx, auth.SystemPrincipal(b.ID), messages.Filter{Kind: *kind})
	if err != nil {
		return describe(err)
	}
	views := make([]templateView, len(ts))
	rows := make([][]string, len(ts))
	for i, t := range ts {
		views[i] = viewTemplate(t)
		rows[i] = []string{t.Kind, orDash(t.Language), t.Subject, t.ID, when(t.UpdatedAt)}
	}
	return f.out(views, func(w io.Writer) error {
		return printTable(w, []string{"KIND", "LANGUAGE", "SUBJECT", "ID", "UPDATED"}, rows)
	})
}

// templateFlags are the flags of template set.
type templateFlags struct {
	brand, kind, language, subject, htmlFile, textFile string
}

func templateSet(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "template set", "brandbase template set --brand URL --kind KIND [--language TAG] --subject TEXT --html-file FILE [--text-file FILE] [flags]")
	var s templateFlags
	f.StringVar(&s.brand, "brand", "", "the brand: its URL or ID (required)")
	f.StringVar(&s.kind, "kind", messages.KindPasswordReset, "the kind of message")
	f.StringVar(&s.language, "language", "", "a language tag (en, pt-BR); empty for the brand's default")
	f.StringVar(&s.subject, "subject", "", "the subject's template, one line (required)")
	f.StringVar(&s.htmlFile, "html-file", "", "the file of the HTML body's template (required)")
	f.StringVar(&s.textFile, "text-file", "", "the file of the text body's template; without it, the built-in one")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos); err != nil {
		return err
	}
	if s.htmlFile == "" {
		return usagef("template set needs --html-file")
	}
	in := messages.Input{EventID: s.kind, LanguageCode: s.language, Subject: s.subject}
	html, err := os.ReadFile(s.htmlFile)
	if err != nil {
		return fmt.Errorf("read --html-file: %w", err)
	}
	in.Body = string(html)
	if s.textFile != "" {
		text, err := os.ReadFile(s.textFile)
		if err != nil {
			return fmt.Errorf("read --text-file: %w", err)
		}
		in.TextBody = new(string(text))
	}
	app, b, done, err := openBrand(ctx, c, f, s.brand)
	if err != nil {
		return err
	}
	defer done()
	t, err := setTemplate(ctx, app, b, in)
	if err != nil {
		return describe(err)
	}
	v := viewTemplate(t)
	return f.out(v, func(w io.Writer) error {
		return printFields(w, [][2]string{{"kind", v.Kind}, {"language", orDash(v.Language)}, {"subject", v.Subject},
			{"id", v.ID}, {"updated", v.Updated}})
	})
}

// setTemplate creates the brand's template of in's kind and language, or
// replaces the one it has.
func setTemplate(ctx context.Context, app *brandbase.App, b auth.Brand, in messages.Input) (messages.Template, error) {
	system := auth.SystemPrincipal(b.ID)
	lang := in.LanguageCode
	ts, err := app.Messages.Templates(ctx, system, messages.Filter{Kind: in.EventID, Language: &lang})
	if err != nil {
		return messages.Template{}, err
	}
	if len(ts) > 0 {
		return app.Messages.Update(ctx, system, ts[0].ID, in)
	}
	return app.Messages.Create(ctx, system, in)
}

func templateDelete(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "template delete", "brandbase template delete --brand URL ID [flags]")
	brand := f.String("brand", "", "the brand: its URL or ID (required)")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos, "ID"); err != nil {
		return err
	}
	app, b, done, err := openBrand(ctx, c, f, *brand)
	if err != nil {
		return err
	}
	defer done()
	if err := app.Messages.Delete(ctx, auth.SystemPrincipal(b.ID), pos[0]); err != nil {
		return describe(err)
	}
	return f.out(map[string]string{"deleted": pos[0]}, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "deleted template %s\n", pos[0])
		return err
	})
}
