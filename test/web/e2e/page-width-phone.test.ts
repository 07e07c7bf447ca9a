import { pageWidthTour } from '../../helpers/page-width-tour.ts';

pageWidthTour(390);
