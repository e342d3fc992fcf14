;;; broken: :score-everything on line 6 is not an option of the 1992 scorer
(define-muc-configuration-options
  :slot-file "slots-small.el"
  :disable-edit t
  :display-type 'all-templates
  :score-everything t
  :scored-slots :all)
