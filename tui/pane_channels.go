package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/engine"
)

// previewBudget bounds the bytes of a one-line value preview: enough for
// the widest pane, and it keeps a megabyte value as cheap as a small one.
const previewBudget = 240

// chanPane is the channels table. Previews are computed once per view (not
// per frame) because values can be large.
type chanPane struct {
	rows         []chanRow
	shown        []int // indexes into rows after the internal toggle and filter
	nav          listNav
	showInternal bool
	filter       textinput.Model
	filtering    bool
}

type chanRow struct {
	cv      engine.ChannelView
	kind    string
	preview string
	// pending is the uncommitted value (an interrupted step's finished
	// tasks wrote it); the row's own value is the checkpoint's.
	pending    *engine.ChannelView
	pendingTxt string
}

func newChanPane() chanPane {
	return chanPane{filter: lineInput("/", "filter", 64)}
}

func kindName(cv engine.ChannelView) string {
	k := map[string]string{
		"LastValue": "last", "BinaryOperatorAggregate": "reduce", "EphemeralValue": "ephemeral",
		"Topic": "topic", "NamedBarrierValue": "barrier", "NamedBarrierValueAfterFinish": "barrier",
		"LastValueAfterFinish": "last*", "AnyValue": "any", "UntrackedValue": "untracked",
	}[cv.Kind]
	if k == "" {
		k = strings.ToLower(cv.Kind)
	}
	if cv.Reducer != "" {
		k += "(" + cv.Reducer + ")"
	}
	return k
}

func (p *chanPane) setChannels(chs []engine.ChannelView, pending map[string]engine.ChannelView) {
	sel := p.selectedName()
	p.rows = make([]chanRow, len(chs))
	for i, cv := range chs {
		r := chanRow{cv: cv, kind: kindName(cv)}
		if cv.HasValue || cv.Available {
			r.preview = preview(cv.Value, previewBudget)
			if cv.Reducer == "add_messages" {
				r.preview = conversationPreview(cv.Value, r.preview)
			}
		}
		if pv, ok := pending[cv.Name]; ok {
			r.pending = &pv
			r.pendingTxt = "pending → " + preview(pv.Value, previewBudget)
		}
		p.rows[i] = r
	}
	p.refilter()
	// Keep the cursor on the same channel across steps.
	for i, idx := range p.shown {
		if p.rows[idx].cv.Name == sel {
			p.nav.cur = i
		}
	}
}

func (p *chanPane) refilter() {
	p.shown = p.shown[:0]
	f := strings.ToLower(p.filter.Value())
	for i, r := range p.rows {
		if r.cv.Internal && !p.showInternal {
			continue
		}
		if f != "" && !strings.Contains(strings.ToLower(r.cv.Name), f) {
			continue
		}
		p.shown = append(p.shown, i)
	}
	p.nav.cur = clamp(p.nav.cur, 0, len(p.shown)-1)
}

func (p chanPane) selected() (engine.ChannelView, bool) {
	if p.nav.cur < len(p.shown) && len(p.shown) > 0 {
		return p.rows[p.shown[p.nav.cur]].cv, true
	}
	return engine.ChannelView{}, false
}

func (p chanPane) selectedName() string {
	cv, _ := p.selected()
	return cv.Name
}

// emptyText says why no channel is listed: the filter, or a graph whose
// channels are all internal (a functional entrypoint's), which i shows.
func (p chanPane) emptyText() string {
	switch {
	case p.filter.Value() != "":
		return "no channel matches"
	case len(p.rows) == 0:
		return "no channels"
	}
	return "no state channels: i shows the internal ones"
}

func (p chanPane) title() string { return p.titleAt("") }

// titleAt is the title of the pane showing the checkpoint at says
// (the tree's "at 6c2da931"), which comes before the count of hidden
// channels: a narrow box cuts its title's end, and at 80 columns it cut
// the id the pane is about ("at e3…").
func (p chanPane) titleAt(at string) string {
	t := "Channels"
	if at != "" {
		t += " " + at
	}
	if !p.showInternal {
		hidden := 0
		for _, r := range p.rows {
			if r.cv.Internal {
				hidden++
			}
		}
		if hidden > 0 {
			t += fmt.Sprintf(" (+%d internal: i)", hidden)
		}
	}
	if v := p.filter.Value(); v != "" && !p.filtering {
		t += " /" + v
	}
	return t
}

func (p chanPane) View(st Styles, watched map[string]bool, focused bool, w, h int) string {
	var rows []string
	body := h
	if p.filtering {
		body--
	}
	nameW, kindW := 4, 4
	for _, i := range p.shown {
		nameW = max(nameW, len(p.rows[i].cv.Name))
		kindW = max(kindW, len(p.rows[i].kind))
	}
	nameW = min(nameW, max(10, w*2/5))
	kindW = min(kindW, 16)
	if w < 50 {
		kindW = 0 // the inspector title still names the kind
	}
	from, to := p.nav.window(body, len(p.shown))
	for i := from; i < to; i++ {
		r := p.rows[p.shown[i]]
		mark := " "
		switch {
		case watched[r.cv.Name] && r.cv.Updated:
			mark = st.Breakpoint.Render("*")
		case watched[r.cv.Name]:
			mark = st.Breakpoint.Render("◆")
		case r.cv.Updated:
			mark = st.Updated.Render("*")
		}
		ver := "  -"
		if r.cv.HasVer {
			ver = fmt.Sprintf("v%-2d", r.cv.Version)
		}
		avail := st.Unavailable.Render("○")
		if r.cv.Available {
			avail = "●"
		}
		name := pad(r.cv.Name, nameW)
		if r.cv.Updated {
			name = st.Updated.Render(name)
		}
		kind := ""
		if kindW > 0 {
			kind = st.Dim.Render(pad(r.kind, kindW)) + " "
		}
		val := r.preview
		if r.pending != nil {
			mark = st.Stale.Render("+")
			val = st.Stale.Render(r.pendingTxt) + "  " + st.Dim.Render("saved: ") + r.preview
		}
		line := mark + name + " " + kind + ver + " " + avail + " " + val
		if focused && i == p.nav.cur {
			line = st.Cursor.Render(pad(ansi.Strip(line), w))
		}
		rows = append(rows, line)
	}
	if len(p.shown) == 0 {
		rows = append(rows, st.Dim.Render(p.emptyText()))
	}
	out := strings.Join(rows, "\n")
	if p.filtering {
		out = fit(out, w, body) + "\n" + p.filter.View()
	}
	return out
}

// conversationPreview sums a messages channel up as its length and last
// message ("3 messages · ai: Because…"), or returns dflt when the value is
// not a list of messages.
func conversationPreview(v any, dflt string) string {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return dflt
	}
	last, _ := list[len(list)-1].(map[string]any)
	role := str(last["role"])
	if role == "" {
		role = str(last["type"])
	}
	text := preview(last["content"], previewBudget)
	if s, ok := last["content"].(string); ok {
		text = strings.ReplaceAll(s, "\n", " ")
	}
	if calls, ok := last["tool_calls"].([]any); ok && len(calls) > 0 {
		text += " [" + plural(len(calls), "tool call") + "]"
	}
	return fmt.Sprintf("%s · %s: %s", plural(len(list), "message"), role, cut(text, previewBudget))
}

// filterKey handles a key while the filter is open: esc clears and
// closes it, enter and tab close it keeping the text, any other key
// edits the text. The caller refilters.
func (p *chanPane) filterKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyEsc:
		p.filtering = false
		p.filter.SetValue("")
		p.filter.Blur()
	case tea.KeyEnter, tea.KeyTab:
		p.filtering = false
		p.filter.Blur()
	default:
		var cmd tea.Cmd
		p.filter, cmd = p.filter.Update(msg)
		return cmd
	}
	return nil
}
